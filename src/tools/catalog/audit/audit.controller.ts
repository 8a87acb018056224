import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { once } from 'node:events';
import { Authenticated } from '../../../auth/auth.decorators';
import { ApiErrors } from '../../../common/api-errors.decorator';
import { RequestContext } from '../../../tenancy/request-context';
import { AuditQueryService } from './audit-query.service';
import { AuditQueryDto, AuditRecordDto } from './audit.dto';

const NDJSON = 'application/x-ndjson';

@ApiTags('Audit')
@Authenticated()
@Controller('v1/tools/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditQueryService,
    private readonly context: RequestContext,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Query the audit trail',
    description:
      'Admins may filter by tenant_id; members always get their own tenant. With `Accept: application/x-ndjson` every matching record is streamed as JSON lines (SIEM export), oldest first unless order=desc.',
  })
  @ApiHeader({
    name: 'Accept',
    required: false,
    description: `application/json (a page) or ${NDJSON} (everything, streamed)`,
  })
  @ApiProduces('application/json', NDJSON)
  @ApiOkResponse({ type: [AuditRecordDto] })
  @ApiErrors(400)
  async list(
    @Query() query: AuditQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const caller = this.context.identity;
    if (!accept?.includes(NDJSON)) {
      response.json(await this.audit.list(caller, query));
      return;
    }
    response.status(200).setHeader('Content-Type', `${NDJSON}; charset=utf-8`);
    for await (const record of this.audit.export(caller, query)) {
      if (response.destroyed) return;
      // Respect backpressure: a slow SIEM reader slows the export instead of filling memory.
      if (!response.write(`${JSON.stringify(record)}\n`)) await once(response, 'drain');
    }
    response.end();
  }
}
