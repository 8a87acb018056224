import { Module } from '@nestjs/common';
import { RequestContext } from './request-context';
import { TenantSettingsService } from './tenant-settings.service';
import { TenantsController } from './tenants.controller';

/** The caller's identity per request and per-tenant settings. */
@Module({
  controllers: [TenantsController],
  providers: [RequestContext, TenantSettingsService],
  exports: [RequestContext, TenantSettingsService],
})
export class TenancyModule {}
