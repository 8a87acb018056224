import { Global, Module } from '@nestjs/common';
import { RequestContext } from './request-context';
import { TenantSettingsService } from './tenant-settings.service';
import { TenantsController } from './tenants.controller';

@Global()
@Module({
  controllers: [TenantsController],
  providers: [RequestContext, TenantSettingsService],
  exports: [RequestContext, TenantSettingsService],
})
export class TenancyModule {}
