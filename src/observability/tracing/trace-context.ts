import { Context, context, ROOT_CONTEXT, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * W3C Trace Context (traceparent, tracestate) read from and written to HTTP headers and MCP `_meta`, whose keys
 * are the same names (MCP 2026-07-28, SEP-414). Nothing else is propagated: baggage could carry anything.
 */
const propagator = new W3CTraceContextPropagator();

/** Longest value read: a traceparent is 55 characters, W3C asks vendors to keep 512 of tracestate. */
const MAX_VALUE_LENGTH = 1024;

/** A carrier is a plain record, e.g. Node's incoming headers or an MCP `_meta` object; only short strings count. */
const recordGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof value === 'string' && value.length <= MAX_VALUE_LENGTH ? value : undefined;
  },
};

const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** The remote parent named by a carrier, layered on `base`; `base` itself when the carrier names none. */
export function extractTraceContext(carrier: unknown, base: Context = ROOT_CONTEXT): Context {
  if (typeof carrier !== 'object' || carrier === null || Array.isArray(carrier)) return base;
  return propagator.extract(base, carrier as Record<string, unknown>, recordGetter);
}

/** `traceparent` (and `tracestate`) of the active span, for an outgoing request's headers or `_meta`. */
export function activeTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(context.active(), carrier, recordSetter);
  return carrier;
}
