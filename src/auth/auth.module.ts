import { DynamicModule, Module, Provider } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import type { Config } from '../config/config.schema';
import { ObservabilityModule } from '../observability/observability.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { CredentialsModule } from '../tools/catalog/credentials/credentials.module';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeysService } from './api-keys.service';
import { BootstrapAdminService } from './bootstrap-admin.service';
import { jwtConfigured, JwtStrategy } from './jwt.strategy';
import { builtInAuthorizationServer, oauthConfigured } from './oauth-resource';
import {
  AUTHORIZATION_SERVER_CONTROLLERS,
  AUTHORIZATION_SERVER_PROVIDERS,
} from './authorization-server/authorization-server.providers';
import { OAuthStrategy } from './oauth.strategy';
import { ProtectedResourceController } from './protected-resource.controller';

@Module({})
export class AuthModule {
  static forRoot(config: Config): DynamicModule {
    const providers: Provider[] = [ApiKeyRepository, ApiKeysService, BootstrapAdminService];
    if (jwtConfigured(config.auth.jwt)) providers.push(JwtStrategy);
    const controllers: DynamicModule['controllers'] = [ApiKeysController];
    if (builtInAuthorizationServer(config.auth.oauth)) {
      providers.push(...AUTHORIZATION_SERVER_PROVIDERS);
      controllers.push(ProtectedResourceController, ...AUTHORIZATION_SERVER_CONTROLLERS);
    } else if (oauthConfigured(config.auth.oauth)) {
      providers.push(OAuthStrategy);
      controllers.push(ProtectedResourceController);
    }
    return {
      module: AuthModule,
      imports: [PassportModule, ObservabilityModule, TenancyModule, CredentialsModule],
      controllers,
      providers,
      exports: [ApiKeysService, BootstrapAdminService],
    };
  }
}
