import { Module } from '@nestjs/common';
import { RequestContext } from './request-context';
import { TenantSettingsRepository } from './tenant-settings.repository';
import { TenantSettingsService } from './tenant-settings.service';
import { TenantsController } from './tenants.controller';

/** The caller's identity per request and per-tenant settings. */
@Module({
  controllers: [TenantsController],
  providers: [RequestContext, TenantSettingsRepository, TenantSettingsService],
  exports: [RequestContext, TenantSettingsService],
})
export class TenancyModule {}
