import { DynamicModule, MiddlewareConsumer, Module, ModuleMetadata, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { LoggerModule } from 'nestjs-pino';
import { AuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import { BodyParsingInterceptor } from './common/body-parsing.interceptor';
import { Clock, SystemClock } from './common/clock';
import { ErrorFilter } from './common/error.filter';
import { createValidationPipe } from './common/validation';
import { CoreModule } from './core.module';
import type { Config } from './config/config.schema';
import { Database } from './database/database';
import { loggingParams } from './observability/logging';
import { HttpMetricsMiddleware } from './observability/http-metrics';
import { HttpTracingMiddleware } from './observability/tracing/http-tracing.middleware';
import { ObservabilityModule } from './observability/observability.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { ProviderModule } from './tools/builtins/builtin-modules';
import { enabledProviderModules } from './tools/builtins/enabled-modules';
import { CatalogModule } from './tools/catalog/catalog.module';
import { CredentialsModule } from './tools/catalog/credentials/credentials.module';
import { McpModule } from './tools/mcp/mcp.module';
import { GatewayModule } from './gateway/gateway.module';
import { BrowserCorsMiddleware } from './gateway/browser-cors.middleware';
import { OriginCheckMiddleware } from './gateway/origin-check';
import { registryCors } from './mcp-registry/registry-cors.middleware';
import { McpRegistryModule } from './mcp-registry/mcp-registry.module';
import { InvocationModule } from './tools/invocation/invocation.module';
import { ProviderApiMetricsMiddleware } from './tools/registry/provider-api-metrics.middleware';
import { RegistryModule } from './tools/registry/registry.module';
import { ResponsesModule } from './responses/responses.module';
import { SandboxModule } from './tools/sandbox/sandbox.module';

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
   * All of the application's middleware, in the order it runs. Before it, the libraries' global modules
   * mount theirs: pino-http (request log, request id) and nestjs-cls (the per-request context).
   * 1. The request's trace span (active for all that follows), HTTP metrics, then the provider-API metrics: first,
   *    so every request is traced and counted, refused ones too.
   * 2. CORS for the allowed browser origins on /mcp, the OAuth metadata and endpoints, then the Origin check on
   *    /mcp, and CORS on the registry API /v0.1: route-specific. CORS comes first so that a preflight is answered
   *    before anything can refuse it, and every later answer (a 401 with its challenge, a 403) carries the CORS
   *    headers.
   * Then Nest's enhancers, registered below: AuthGuard (identity and tenant), the BodyParsingInterceptor (content
   * type, JSON, form, JSON depth and storable strings: bodies are read only once the caller is authenticated), the
   * ValidationPipe (DTOs), and the ErrorFilter that turns anything thrown by middleware, guard, interceptor, pipe or
   * handler into the envelope.
   */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpTracingMiddleware, HttpMetricsMiddleware, ProviderApiMetricsMiddleware).forRoutes('*');
    const mcpRoutes = [
      { path: 'mcp', method: RequestMethod.ALL },
      { path: 'mcp/profiles/:agent_profile', method: RequestMethod.ALL },
    ];
    consumer
      .apply(BrowserCorsMiddleware)
      .forRoutes(
        ...mcpRoutes,
        { path: '.well-known/*path', method: RequestMethod.ALL },
        { path: 'register', method: RequestMethod.ALL },
        { path: 'token', method: RequestMethod.ALL },
      );
    consumer.apply(OriginCheckMiddleware).forRoutes(...mcpRoutes);
    consumer.apply(registryCors).forRoutes({ path: 'v0.1/*path', method: RequestMethod.ALL });
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
        SandboxModule,
        GatewayModule,
        McpRegistryModule,
        InvocationModule,
        ResponsesModule,
        ...enabledProviderModules(config, providers).map((entry) => entry.module),
        ...imports,
      ],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        {
          provide: APP_INTERCEPTOR,
          useFactory: () => new BodyParsingInterceptor(config.server.body_limit, config.server.max_json_depth),
        },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: ErrorFilter },
      ],
    };
  }
}
