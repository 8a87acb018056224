import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { ApiError } from '../common/api-error';
import { ApiErrors } from '../common/api-errors.decorator';
import { withTimeout } from '../common/timeout';
import { Lifecycle } from './lifecycle';

const DATABASE_CHECK_TIMEOUT_MS = 2_000;

class HealthDto {
  @ApiProperty({ example: 'ok' })
  status: 'ok';
}

class ReadinessDto extends HealthDto {
  @ApiProperty({ example: { database: 'ok', migrations: 'ok' } })
  checks: Record<string, string>;
}

@ApiTags('Health')
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process is up.' })
  @ApiOkResponse({ type: HealthDto })
  healthz(): HealthDto {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: the database answers and every migration is applied.' })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiErrors(503)
  async readyz(): Promise<ReadinessDto> {
    if (this.lifecycle.isDraining) throw ApiError.unavailable('Shutting down', 'draining');
    try {
      // A probe of the connection, not of any table: no repository owns it.
      await withTimeout(this.dataSource.query('SELECT 1'), DATABASE_CHECK_TIMEOUT_MS);
    } catch {
      throw ApiError.unavailable('The database is unreachable', 'database_unavailable');
    }
    if (await this.dataSource.showMigrations()) {
      throw ApiError.unavailable('Database migrations are pending', 'migrations_pending');
    }
    return { status: 'ok', checks: { database: 'ok', migrations: 'ok' } };
  }
}
