import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** The socket server's query queue (pglite-socket 0.2): one entry per wire-protocol message. */
interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve(bytes: number): void;
  reject(error: unknown): void;
  onData(data: Uint8Array): void;
}
interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  db: PGlite;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

/** Messages after which a connection's exchange is complete: Sync, simple Query, Terminate. */
const ENDS_EXCHANGE = new Set([0x53, 0x51, 0x58]);

/**
 * pglite-socket queues each wire-protocol message on its own and, outside a transaction, lets any
 * connection's message run next. PGlite has one backend session, so another connection's query run between
 * one connection's Parse and its Bind/Execute replaces the unnamed prepared statement ("unnamed prepared
 * statement does not exist", "bind message supplies 3 parameters, but prepared statement requires 6").
 * This keeps the queue on one connection from its first extended-protocol message until its Sync, exactly
 * as the server already does for transactions.
 */
export function keepExtendedQueriesTogether(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue?: QueryQueue }).queryQueue;
  if (!queue || typeof queue.processQueue !== 'function' || !Array.isArray(queue.queue)) {
    throw new Error(
      '@electric-sql/pglite-socket changed its query queue; review src/database/pglite-protocol-affinity.ts',
    );
  }
  let midExchange: number | null = null;

  queue.processQueue = async function processQueue(this: QueryQueue): Promise<void> {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = midExchange ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        const index = owner === null ? 0 : this.queue.findIndex((entry) => entry.handlerId === owner);
        if (index === -1) break; // the owner's next message has not arrived yet
        const [entry] = this.queue.splice(index, 1);
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(entry.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                entry.onData(data);
              },
            }),
          );
        } catch (error) {
          midExchange = null;
          entry.reject(error);
          return;
        }
        midExchange = isStartup(entry.message) || ENDS_EXCHANGE.has(entry.message[0]) ? null : entry.handlerId;
        this.lastHandlerId = entry.handlerId;
        entry.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };

  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId: number) => {
    clear(handlerId);
    // A connection that went away mid-exchange must not hold the queue.
    if (midExchange === handlerId) {
      midExchange = null;
      void queue.processQueue();
    }
  };
}

/** Startup, SSL and cancel requests have no type byte: length, then a protocol code. */
function isStartup(message: Uint8Array): boolean {
  return (
    message.length >= 8 &&
    message[0] === 0 &&
    new DataView(message.buffer, message.byteOffset).getInt32(0) === message.length
  );
}
