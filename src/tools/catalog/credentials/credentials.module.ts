import { Logger, Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Database } from '../../../database/database';
import { TenancyModule } from '../../../tenancy/tenancy.module';
import { TenantCredentials } from '../../invocation/tenant-credentials';
import { KeyRing } from './credential-cipher';
import { CredentialRepository } from './credential.repository';
import { CredentialsAdminController, CredentialsController } from './credentials.controller';
import { CredentialsService } from './credentials.service';
import { loadKeyRing } from './encryption-keys';
import { SecretResolver } from './secret-resolver';

/**
 * Per-tenant credentials (encrypted at rest) and source-level secrets (environment or mounted files).
 */
@Module({
  imports: [TenancyModule],
  controllers: [CredentialsController, CredentialsAdminController],
  providers: [
    {
      // Fails start-up with a ConfigError when no key is usable (e.g. an external database without one).
      provide: KeyRing,
      inject: [AppConfig, Database, CredentialRepository],
      useFactory: (config: AppConfig, database: Database, credentials: CredentialRepository) =>
        loadKeyRing({
          config,
          embedded: database.isEmbedded,
          // Migrations not applied yet (database.migrations_run: false): there is nothing to lose.
          countCredentials: () => credentials.count().catch(() => 0),
          logger: new Logger('Credentials'),
        }),
    },
    CredentialRepository,
    CredentialsService,
    { provide: TenantCredentials, useExisting: CredentialsService },
    {
      provide: SecretResolver,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new SecretResolver(config.secrets),
    },
  ],
  exports: [CredentialsService, SecretResolver, TenantCredentials, KeyRing],
})
export class CredentialsModule {}
