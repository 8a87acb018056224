import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { randomToken } from '../common/ids';
import { Database } from './database';

const CHANNEL = 'toolgate_changes';
const RECONNECT_DELAY_MS = 1000;

type Handler = (data: unknown) => void;

interface Envelope {
  topic: string;
  data: unknown;
  origin: string;
}

/**
 * Cache invalidation across replicas through Postgres LISTEN/NOTIFY. `publish` delivers to this
 * process at once and to every other replica through NOTIFY; after a lost listener connection comes
 * back, subscribers are told to drop everything (`reset`), since notifications may have been missed.
 * (The embedded database serves one process only, so local delivery is all it needs.)
 * Its NOTIFY and LISTEN touch no table: infrastructure SQL, kept here rather than in a module's repository.
 */
@Injectable()
export class ChangeEvents implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeEvents');
  private readonly origin = randomToken(12);
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly resetHandlers = new Set<() => void>();
  private listener?: Client;
  private stopped = false;

  constructor(private readonly database: Database) {}

  async onModuleInit(): Promise<void> {
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    // At shutdown a listener that fails to end cleanly has nothing left to clean up.
    await this.listener?.end().catch(() => undefined);
  }

  /** Runs `handler` for every change published on `topic`, here or on another replica. */
  subscribe(topic: string, handler: Handler): void {
    if (!this.handlers.has(topic)) this.handlers.set(topic, new Set());
    this.handlers.get(topic)!.add(handler);
  }

  /** Runs `handler` when notifications may have been missed: drop every cached entry. */
  onReset(handler: () => void): void {
    this.resetHandlers.add(handler);
  }

  /** Announces a committed change. Call it after the transaction that made the change has committed. */
  async publish(topic: string, data: unknown = null): Promise<void> {
    this.deliver(topic, data);
    const envelope: Envelope = { topic, data, origin: this.origin };
    await this.database.dataSource.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(envelope)]);
  }

  private deliver(topic: string, data: unknown): void {
    for (const handler of this.handlers.get(topic) ?? []) handler(data);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.database.url, application_name: 'toolgate-listener' });
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      // Thrown from an event emitter this would end the process: anyone with database access can NOTIFY.
      try {
        const envelope = JSON.parse(message.payload) as Envelope;
        if (envelope.origin !== this.origin) this.deliver(envelope.topic, envelope.data);
      } catch (error) {
        this.logger.warn(`Ignored a change notification: ${(error as Error).message}`);
      }
    });
    const lost = (error?: Error) => {
      if (this.stopped || this.listener !== client) return;
      this.listener = undefined;
      this.logger.warn(`Lost the LISTEN connection${error ? `: ${error.message}` : ''}; reconnecting`);
      // The connection is already broken; ending it only releases the socket and may fail.
      client.end().catch(() => undefined);
      setTimeout(() => this.reconnect(), RECONNECT_DELAY_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.listen();
      for (const handler of this.resetHandlers) handler();
    } catch (error) {
      this.logger.warn(`LISTEN reconnect failed: ${(error as Error).message}`);
      setTimeout(() => this.reconnect(), RECONNECT_DELAY_MS).unref();
    }
  }
}
