import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors.decorator';
import { RequestContext } from './request-context';
import { assertTenantAccess } from './tenant-access';
import { TenantSettingsDto, UpdateTenantSettingsDto } from './tenant-settings.dto';
import { TenantSettingsService } from './tenant-settings.service';

@ApiTags('Tenants')
@Authenticated()
@Controller('v1/tenants/:tenant_id/settings')
export class TenantsController {
  constructor(
    private readonly settings: TenantSettingsService,
    private readonly context: RequestContext,
  ) {}

  @Get()
  @ApiOperation({ summary: "Get a tenant's settings (admins, or the tenant itself)." })
  @ApiParam({ name: 'tenant_id', example: 'acme' })
  @ApiOkResponse({ type: TenantSettingsDto })
  @ApiErrors(404)
  get(@Param('tenant_id') tenantId: string): Promise<TenantSettingsDto> {
    assertTenantAccess(this.context.identity, tenantId);
    return this.settings.get(tenantId);
  }

  @Put()
  @ApiOperation({
    summary: "Update a tenant's settings (admins, or the tenant itself). Unmentioned sections are kept.",
  })
  @ApiParam({ name: 'tenant_id', example: 'acme' })
  @ApiOkResponse({ type: TenantSettingsDto })
  @ApiErrors(400, 404)
  update(@Param('tenant_id') tenantId: string, @Body() body: UpdateTenantSettingsDto): Promise<TenantSettingsDto> {
    assertTenantAccess(this.context.identity, tenantId);
    return this.settings.update(tenantId, body);
  }
}
