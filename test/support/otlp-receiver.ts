import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as OTLP/HTTP JSON carries it (ids in hex), with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  serviceName: unknown;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

/** A trace collector on loopback: accepts OTLP/HTTP JSON exports on /v1/traces and keeps every span and body. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every export body as received, to check what never leaves the service. */
  readonly bodies: string[] = [];
  url = '';
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      void this.receive(request).then(
        () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'),
        () => response.writeHead(400).end(),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  named(name: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.name === name);
  }

  byId(spanId: string | undefined): ReceivedSpan | undefined {
    return this.spans.find((span) => span.spanId === spanId);
  }

  private async receive(request: IncomingMessage): Promise<void> {
    if (request.method !== 'POST' || request.url !== '/v1/traces') throw new Error('not an OTLP traces export');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
    const text = body.toString('utf8');
    this.bodies.push(text);
    const exported = JSON.parse(text) as {
      resourceSpans?: {
        resource?: { attributes?: OtlpAttribute[] };
        scopeSpans?: {
          spans?: (Omit<ReceivedSpan, 'attributes' | 'serviceName'> & { attributes?: OtlpAttribute[] })[];
        }[];
      }[];
    };
    for (const resourceSpans of exported.resourceSpans ?? []) {
      const serviceName = flatten(resourceSpans.resource?.attributes)['service.name'];
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({ ...span, attributes: flatten(span.attributes), serviceName });
    }
  }
}

function flatten(attributes: OtlpAttribute[] = []): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const { key, value } of attributes)
    flat[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue;
  return flat;
}
