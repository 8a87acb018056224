import { SpanKind } from '@opentelemetry/api';
import type { Tracing } from './tracing';

/**
 * A client span around database work a call waits for (its audit record, its rate-limit slot): named by
 * operation and table, never by the statement's values.
 */
export function traceDatabase<T>(
  tracing: Tracing,
  operation: string,
  table: string,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return work();
  return tracing.inSpan(
    `${operation} ${table}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.collection.name': table },
    },
    work,
  );
}
