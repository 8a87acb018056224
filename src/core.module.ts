import { DynamicModule, Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from './common/clock';
import { JsonSchemaValidator } from './common/json-schema';
import { AppConfig } from './config/app-config';
import type { Config } from './config/config.schema';
import { ChangeEvents } from './database/change-events';
import { Database } from './database/database';
import { Tracing } from './observability/tracing/tracing';

/**
 * Configuration, time, database, change notifications, the JSON Schema validator and tracing: infrastructure that
 * knows no feature, available to every module. The only global module of ours; feature modules import
 * each other explicitly.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: Config, database: Database, clock: Clock): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: Database, useValue: database },
        { provide: DataSource, useValue: database.dataSource },
        ChangeEvents,
        JsonSchemaValidator,
        Tracing,
      ],
      exports: [AppConfig, Clock, Database, DataSource, ChangeEvents, JsonSchemaValidator, Tracing],
    };
  }
}
