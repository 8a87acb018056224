import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Config } from '../../config/config.schema';

type TracingConfig = Config['observability']['tracing'];

/**
 * Limits on what one span holds: attribute values come partly from callers (tool names, routes), so they are
 * cut short rather than exported at any size.
 */
const SPAN_LIMITS = { attributeValueLengthLimit: 256, attributeCountLimit: 32, eventCountLimit: 16, linkCountLimit: 4 };

/**
 * The SDK's tracer provider exporting over OTLP/HTTP. Finished spans go to a BatchSpanProcessor: the request
 * that ended a span only appends it to a bounded queue (full: the span is dropped, never the request delayed),
 * and a timer exports batches; shutdown() exports what is still queued.
 */
export function createTracerProvider(settings: TracingConfig & { otlp_endpoint: string }, version: string) {
  const exporter = new OTLPTraceExporter({ url: settings.otlp_endpoint, timeoutMillis: 10_000 });
  return new TracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: settings.service_name,
      [ATTR_SERVICE_VERSION]: version,
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sample_ratio) }),
    spanLimits: SPAN_LIMITS,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: settings.export_delay,
        maxQueueSize: 4096,
        maxExportBatchSize: 512,
      }),
    ],
  });
}
