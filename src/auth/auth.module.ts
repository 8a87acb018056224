import { DynamicModule, Module, Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import type { Config } from '../config/config.schema';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuthGuard } from './auth.guard';
import { BootstrapAdminService } from './bootstrap-admin.service';
import { jwtConfigured, JwtStrategy } from './jwt.strategy';

@Module({})
export class AuthModule {
  static forRoot(config: Config): DynamicModule {
    const providers: Provider[] = [ApiKeysService, BootstrapAdminService, { provide: APP_GUARD, useClass: AuthGuard }];
    if (jwtConfigured(config.auth.jwt)) providers.push(JwtStrategy);
    return {
      module: AuthModule,
      imports: [PassportModule],
      controllers: [ApiKeysController],
      providers,
      exports: [ApiKeysService, BootstrapAdminService],
    };
  }
}
