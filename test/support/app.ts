import type { ModuleMetadata } from '@nestjs/common';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { createToolgate, Toolgate } from '../../src/app.factory';
import { deepMerge, validateConfig } from '../../src/config/config.loader';
import type { ConfigInput } from '../../src/config/config.schema';
import { randomToken } from '../../src/common/ids';
import { createTestDatabase, Engine, TestDatabase, testConfigBase } from './databases';
import type { ProviderModule } from '../../src/tools/builtins/builtin-modules';
import type { Clock } from '../../src/common/clock';

export interface TestApp {
  toolgate: Toolgate;
  /** Base URL of the listening server (real sockets, for SSE and disconnects). */
  baseUrl: string;
  http: TestAgent;
  adminKey: string;
  close(): Promise<void>;
}

export interface StartOptions {
  config?: ConfigInput;
  imports?: ModuleMetadata['imports'];
  /** Provider modules defined by the test, loaded through discovery like built-in ones. */
  providers?: ProviderModule[];
  /** A clock the test can move (see test/support/manual-clock.ts). */
  clock?: Clock;
  /** Reuse a database (second replica, restart); otherwise a fresh one is created and dropped on close. */
  database?: TestDatabase;
  adminKey?: string;
  /** Listen on this port instead of any free one (a config that names the service's own URL needs it first). */
  port?: number;
}

/** Boots the real service on a real database and a loopback port. */
export async function startApp(engine: Engine, options: StartOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(engine));
  const adminKey = options.adminKey ?? `tg_test_admin_${randomToken(24)}`;
  const config = validateConfig(
    deepMerge(
      {
        ...testConfigBase(database),
        server: { port: 0, host: '127.0.0.1', shutdown_grace_period: 1000 },
        auth: { admin_api_key: adminKey },
        // The sentence encoder loads a 250 MB model and changes scores: only the suites about it turn it on.
        catalog: { review: { encoder: false } },
      },
      options.config ?? {},
    ),
  );
  let toolgate: Toolgate;
  try {
    toolgate = await createToolgate(config, {
      imports: options.imports,
      providers: options.providers,
      clock: options.clock,
    });
  } catch (error) {
    if (!options.database) await database.drop();
    throw error;
  }
  await toolgate.app.listen(options.port ?? 0, '127.0.0.1');
  const server = toolgate.app.getHttpServer() as Server;
  const { port } = server.address() as AddressInfo;
  return {
    toolgate,
    baseUrl: `http://127.0.0.1:${port}`,
    http: request(server),
    adminKey,
    close: async () => {
      await toolgate.close();
      if (!options.database) await database.drop();
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

export interface Replicas {
  replicas: TestApp[];
  close(): Promise<void>;
}

/** Several app instances started together on one fresh PostgreSQL database, as replicas behind a load balancer. */
export async function startReplicas(options: Omit<StartOptions, 'database'> = {}, count = 2): Promise<Replicas> {
  const database = await createTestDatabase('postgres');
  const adminKey = options.adminKey ?? `tg_test_admin_${randomToken(24)}`;
  const replicas = await Promise.all(
    Array.from({ length: count }, () => startApp('postgres', { ...options, database, adminKey })),
  );
  return {
    replicas,
    close: async () => {
      for (const replica of replicas) await replica.close();
      await database.drop();
    },
  };
}
