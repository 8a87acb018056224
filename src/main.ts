import 'reflect-metadata';
import type { Server } from 'node:http';
import { createToolgate } from './app.factory';
import { ConfigError, loadConfig } from './config/config.loader';
import { DataDirInUseError } from './database/data-dir-lock';
import { BackgroundTasks } from './observability/background';
import { Lifecycle } from './observability/lifecycle';

/**
 * A promise rejected with nobody listening would end the process under Node's default, taking every
 * request in flight with it. It is a bug somewhere, so it is logged loudly (and counted once the app is
 * up, as task "unhandled_rejection"), but the service keeps serving.
 */
let reportUnhandled = (reason: unknown): void => {
  const detail = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
  process.stderr.write(`Unhandled promise rejection: ${detail}\n`);
};
process.on('unhandledRejection', (reason) => reportUnhandled(reason));

async function main(): Promise<void> {
  const config = loadConfig();
  const toolgate = await createToolgate(config);
  const { app } = toolgate;
  const background = app.get(BackgroundTasks);
  reportUnhandled = (reason) => background.failed('unhandled_rejection', reason);
  await app.listen(config.server.port, config.server.host);
  const server = app.getHttpServer() as Server;
  // Before anything is printed: whoever waits for the URL may send SIGTERM as soon as they see it.
  installShutdown(server, toolgate.close, app.get(Lifecycle), config.server.shutdown_grace_period);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  const shownHost = config.server.host === '0.0.0.0' || config.server.host === '::' ? 'localhost' : config.server.host;
  const url = `http://${shownHost}:${port}`;
  const database = toolgate.database.isEmbedded ? `embedded PGlite in ${config.data_dir}` : 'PostgreSQL (DATABASE_URL)';
  process.stdout.write(`Toolgate listening on ${url} (database: ${database}); API docs at ${url}/docs\n`);
  if (toolgate.generatedAdminKey) {
    // On stderr, outside the JSON logs on stdout: the key must reach the operator once and never a log pipeline.
    process.stderr.write(
      `\nAdmin API key (shown once, stored hashed; set ADMIN_API_KEY to choose your own):\n  ${toolgate.generatedAdminKey}\n\n`,
    );
    // A SIGTERM right after the URL may already have closed the database; at worst the next start
    // suggests ADMIN_API_KEY although the key was shown.
    await toolgate.confirmAdminKeyShown().catch(() => undefined);
  } else if (toolgate.adminKeyLost) {
    process.stderr.write(
      '\nNo admin API key is available: the start that generated it failed before showing it. ' +
        'Set ADMIN_API_KEY (e.g. ADMIN_API_KEY=tg_$(openssl rand -hex 16)) and start again; it replaces the lost key.\n\n',
    );
  }
}

/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish within the grace period,
 * then close providers and the database. A second signal exits at once.
 */
function installShutdown(server: Server, close: () => Promise<void>, lifecycle: Lifecycle, graceMs: number): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`${signal} received: draining (grace period ${graceMs} ms)\n`);
    lifecycle.startDraining();
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    void Promise.race([drained, deadline])
      .then(() => server.closeAllConnections())
      .then(close)
      .then(
        () => process.exit(0),
        (error: Error) => {
          process.stderr.write(`Shutdown failed: ${error.message}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: Error) => {
  const explained = error instanceof ConfigError || error instanceof DataDirInUseError;
  const message = explained ? error.message : `Start-up failed: ${error.message}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
