import { DynamicModule, Global, MiddlewareConsumer, Module, ModuleMetadata, NestModule } from '@nestjs/common';
import { json, urlencoded } from 'body-parser';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { LoggerModule } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { AuthModule } from './auth/auth.module';
import { Clock, SystemClock } from './common/clock';
import { ErrorFilter } from './common/error.filter';
import { jsonDepthLimit } from './common/json-depth.middleware';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/app-config';
import type { Config } from './config/config.schema';
import { ChangeEvents } from './database/change-events';
import { Database } from './database/database';
import { loggingParams } from './observability/logging';
import { ObservabilityModule } from './observability/observability.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { ProviderModule } from './tools/builtins/builtin-modules';
import { enabledProviderModules } from './tools/builtins/enabled-modules';
import { CatalogModule } from './tools/catalog/catalog.module';
import { CredentialsModule } from './tools/catalog/credentials/credentials.module';
import { McpModule } from './tools/mcp/mcp.module';
import { GatewayModule } from './gateway/gateway.module';
import { InvocationModule } from './tools/invocation/invocation.module';
import { RegistryModule } from './tools/registry/registry.module';
import { ResponsesModule } from './responses/responses.module';

/** Configuration, database and change notifications, available to every module. */
@Global()
@Module({})
class CoreModule {
  static forRoot(config: Config, database: Database, clock: Clock): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: Database, useValue: database },
        { provide: DataSource, useValue: database.dataSource },
        ChangeEvents,
      ],
      exports: [AppConfig, Clock, Database, DataSource, ChangeEvents],
    };
  }
}

export interface AppModuleOptions {
  config: Config;
  database: Database;
  /** Provider modules beyond the built-in ones (tests define their own); enabled by `builtins.<name>.enabled` like the rest. */
  providers?: ProviderModule[];
  /** Any other extra modules. */
  imports?: ModuleMetadata['imports'];
  /** The time source; tests pass one they can move. */
  clock?: Clock;
}

@Module({})
export class AppModule implements NestModule {
  /**
   * Request bodies are parsed here, after the logging and metrics middleware of the imported modules, so
   * requests refused by the parser (malformed JSON, too large) are logged and counted like any other.
   */
  constructor(private readonly config: AppConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    const limit = this.config.server.body_limit;
    consumer
      .apply(json({ limit }), urlencoded({ limit, extended: true }), jsonDepthLimit(this.config.server.max_json_depth))
      .forRoutes('*');
  }

  static forRoot({
    config,
    database,
    providers = [],
    imports = [],
    clock = new SystemClock(),
  }: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, database, clock),
        LoggerModule.forRoot(loggingParams(config)),
        ClsModule.forRoot({
          global: true,
          middleware: { mount: true, generateId: true, idGenerator: (req) => req.id },
        }),
        ObservabilityModule,
        TenancyModule,
        AuthModule.forRoot(config),
        RegistryModule,
        CatalogModule,
        CredentialsModule,
        McpModule,
        GatewayModule,
        InvocationModule,
        ResponsesModule,
        ...enabledProviderModules(config, providers).map((entry) => entry.module),
        ...imports,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
