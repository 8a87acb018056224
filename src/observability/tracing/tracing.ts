import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import {
  Attributes,
  Context,
  context,
  INVALID_SPAN_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { TracerProvider } from '@opentelemetry/sdk-trace';
import { version } from '../../../package.json';
import { AppConfig } from '../../config/app-config';
import { activeTraceContext, extractTraceContext } from './trace-context';
import { createTracerProvider } from './tracer-provider';

/** A fetch function, whatever forms of URL it takes. */
type FetchOf<Url> = (url: Url, init?: RequestInit) => Promise<Response>;

/** What a caller gets in place of a span while tracing is off: every method does nothing. */
const NON_RECORDING_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

let contextManagerRegistered = false;

/**
 * Spans need the active span to follow async work (a request's handlers, awaits, the SDK's fetches). The context
 * manager is process-wide and registered once, by the first app that turns tracing on; apps with tracing off
 * never touch it.
 */
function registerContextManager(): void {
  if (contextManagerRegistered) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerRegistered = true;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context when absent. */
  parent?: Context;
}

/**
 * OpenTelemetry tracing of this app, on only when observability.tracing.otlp_endpoint is set. Its own tracer
 * provider (not the global one, so apps in one process keep their settings). While off, every method returns at
 * its first line: no span, no context switch, no header parsing.
 */
@Injectable()
export class Tracing implements OnApplicationShutdown {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  private readonly provider?: TracerProvider;

  constructor(config: AppConfig) {
    const settings = config.observability.tracing;
    const endpoint = settings.otlp_endpoint;
    this.enabled = endpoint !== undefined;
    if (endpoint === undefined) {
      this.tracer = trace.getTracer('toolgate');
      return;
    }
    registerContextManager();
    this.provider = createTracerProvider({ ...settings, otlp_endpoint: endpoint }, version);
    this.tracer = this.provider.getTracer('toolgate', version);
  }

  /**
   * Runs `work` inside a new span, which ends when the work settles. A throw marks the span as an error with
   * the error's class only: messages can quote arguments or upstream answers.
   */
  async inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
    if (!this.enabled) return work(NON_RECORDING_SPAN);
    const parent = options.parent ?? context.active();
    const span = this.tracer.startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), () => work(span));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? error.constructor.name : typeof error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** Runs `work` with the remote parent an MCP request names in `_meta` (traceparent, tracestate), if any. */
  withRemoteParent<T>(meta: unknown, work: () => T): T {
    if (!this.enabled) return work();
    return context.with(extractTraceContext(meta, context.active()), work);
  }

  /** Adds attributes to the active span (the one of the work in progress). */
  annotate(attributes: Attributes): void {
    if (!this.enabled) return;
    trace.getActiveSpan()?.setAttributes(attributes);
  }

  /** `traceparent` (and `tracestate`) for an outgoing MCP request's `_meta`; undefined when there is none. */
  outgoingContext(): Record<string, string> | undefined {
    if (!this.enabled) return undefined;
    const carrier = activeTraceContext();
    return carrier.traceparent === undefined ? undefined : carrier;
  }

  /** A fetch that sends the active trace context as W3C headers on every request it makes. */
  propagatingFetch<Url>(fetch: FetchOf<Url>): FetchOf<Url> {
    if (!this.enabled) return fetch;
    return (url, init) => {
      const carrier = activeTraceContext();
      if (carrier.traceparent === undefined) return fetch(url, init);
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
      return fetch(url, { ...init, headers });
    };
  }

  /** Exports what is still queued, then stops the exporter. */
  async onApplicationShutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}
