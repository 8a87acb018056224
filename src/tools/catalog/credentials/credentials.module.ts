import { Logger, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/app-config';
import { Database } from '../../../database/database';
import { TenancyModule } from '../../../tenancy/tenancy.module';
import { TenantCredentials } from '../../invocation/tenant-credentials';
import { KeyRing } from './credential-cipher';
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
      inject: [AppConfig, Database, DataSource],
      useFactory: (config: AppConfig, database: Database, dataSource: DataSource) =>
        loadKeyRing({
          config,
          embedded: database.isEmbedded,
          countCredentials: async () => {
            const rows: { n: number }[] = await dataSource
              .query('SELECT count(*)::int AS n FROM tenant_credentials')
              // Migrations not applied yet (database.migrations_run: false): there is nothing to lose.
              .catch(() => [{ n: 0 }]);
            return rows[0].n;
          },
          logger: new Logger('Credentials'),
        }),
    },
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
