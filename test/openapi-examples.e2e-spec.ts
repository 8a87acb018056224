import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';
import { FakeSearchServer, hits } from './support/fake-search-server';
import { MutableMcpServer } from './support/mcp-servers';

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  schema?: Schema;
}
interface MediaType {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
  encoding?: Record<string, { style?: string }>;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** An id in an example stands for a real object of its kind: these are the kinds, by prefix. */
const EXAMPLE_ID = /^(tool_|bundle_|key_|vs_|file-|resp_|pol_)[A-Za-z0-9]+$/;

/**
 * The request body Swagger UI offers for a media type, as its "Try it out" sends it: the media type's
 * example(s) when given, otherwise one built from the schema (each property's example, else its default,
 * else its first enum value, else a placeholder such as "string"); read-only properties are left out.
 */
function requestExamples(document: OpenApiDocument, media: MediaType, multipart: boolean): unknown[] {
  if (media.examples) return Object.values(media.examples).map((example) => example.value);
  if (media.example !== undefined) return [media.example];
  const resolve = (schema: Schema): Schema => {
    let current = schema;
    while (typeof current.$ref === 'string') current = document.components.schemas[current.$ref.split('/').pop()!];
    return current;
  };
  const sample = (raw: Schema): unknown => {
    const schema = resolve(raw);
    if (schema.example !== undefined) return schema.example;
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    if (Array.isArray(schema.allOf))
      return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => sample(part) as object));
    if (Array.isArray(schema.oneOf)) {
      // A multipart body is an upload: of the alternatives, the one with a file.
      const options = (schema.oneOf as Schema[]).map(resolve);
      const upload = options.find((option) => JSON.stringify(option).includes('"format":"binary"'));
      return sample(multipart && upload ? upload : options[0]);
    }
    if (schema.type === 'array') return [sample((schema.items as Schema) ?? {})];
    if (schema.type === 'object' || schema.properties) {
      const properties = Object.entries((schema.properties as Record<string, Schema>) ?? {});
      return Object.fromEntries(
        properties
          .filter(([, property]) => !property.readOnly && !resolve(property).readOnly)
          .map(([name, property]) => [name, sample(property)]),
      );
    }
    return ({ string: 'string', integer: 0, number: 0, boolean: true } as Record<string, unknown>)[
      schema.type as string
    ];
  };
  return [sample(media.schema)];
}

/**
 * Every request example of the OpenAPI document, sent as it is, in the document's order, against a fresh
 * service: each must succeed. The only stand-ins are what an example cannot know: ids of objects it refers
 * to (the last real one of that kind: created by an earlier example, or a built-in tool), the addresses of the MCP servers it
 * names (a local one: tests reach no network) and the bytes of an uploaded file.
 */
describe('every request example in the OpenAPI document works as sent', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  let mcp: MutableMcpServer;
  let search: FakeSearchServer;
  let model: FakeChatServer;
  const secrets = mkdtempSync(join(tmpdir(), 'toolgate-examples-'));

  beforeAll(async () => {
    mcp = await new MutableMcpServer().start();
    mcp.setTool({
      definition: {
        name: 'list_issues',
        description: 'Lists the issues of a repository.',
        inputSchema: { type: 'object', properties: { repo: { type: 'string', maxLength: 100 } } },
      },
    });
    search = await FakeSearchServer.serving('searxng', hits('searx', 3));
    model = await FakeChatServer.start();
    model.responder = () => ({ text: 'Employees travel by train for trips under four hours.' });
    // The secret the source examples name, provided as an operator would.
    writeFileSync(join(secrets, 'mcp-github-api-key'), 'example-upstream-key\n');
    t = await startApp('postgres', {
      config: {
        builtins: {
          file_search: { poll_interval: '100ms' },
          web_search: { enabled: true, search_engine_url: search.url },
        },
        engine: { upstream: { url: model.url } },
        secrets: { dir: secrets },
      },
    });
    document = (await t.http.get('/openapi.json').expect(200)).body as OpenApiDocument;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await mcp?.stop();
    await search?.close();
    await model?.close();
    rmSync(secrets, { recursive: true, force: true });
  });

  it('answers each with success', async () => {
    const created = new Map<string, Record<string, unknown>>();
    const latestId = new Map<string, string>();
    const remember = (body: unknown) => {
      const items = [body, ...((body as { data?: unknown[] })?.data ?? [])] as { id?: unknown }[];
      for (const item of items) {
        const id = typeof item?.id === 'string' ? item.id : undefined;
        const kind = id?.match(EXAMPLE_ID)?.[1];
        if (kind) latestId.set(kind, id!);
      }
    };
    const standIns = (value: unknown, key?: string): unknown => {
      if (typeof value === 'string') {
        const kind = value.match(EXAMPLE_ID)?.[1];
        if (kind && latestId.has(kind)) return latestId.get(kind);
        if (key === 'url' && value.startsWith('https://')) return mcp.url;
        return value;
      }
      if (Array.isArray(value)) return value.map((item) => standIns(item));
      if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, standIns(v, k)]));
      return value;
    };

    // A fresh service already has objects an example may name: its built-in tools.
    remember((await t.http.get('/v1/tools').set(bearer(t.adminKey)).expect(200)).body);

    const outcomes: string[] = [];
    let sent = 0;
    for (const [template, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.requestBody) continue;
        // Path parameters: the documented example, else the object the collection's own example created.
        let path = template;
        for (const parameter of (operation.parameters ?? []).filter((p) => p.in === 'path')) {
          const collection = template.slice(0, template.indexOf(`/{${parameter.name}}`));
          const owner = created.get(collection);
          const value =
            parameter.example ?? parameter.schema?.example ?? owner?.[parameter.name === 'name' ? 'name' : 'id'];
          path = path.replace(`{${parameter.name}}`, String(value));
        }
        for (const [contentType, media] of Object.entries(operation.requestBody.content)) {
          const multipart = contentType === 'multipart/form-data';
          for (const example of requestExamples(document, media, multipart)) {
            const body = standIns(example) as Record<string, unknown>;
            const request = t.http[method as 'post' | 'put'](path).set(bearer(t.adminKey));
            if (multipart) {
              for (const [field, value] of Object.entries(body)) {
                if (field === 'file')
                  request.attach('file', Buffer.from('Travel policy: trains under 4 h.'), 'policy.txt');
                else if (media.encoding?.[field]?.style === 'deepObject')
                  for (const [part, partValue] of Object.entries(value as object))
                    request.field(`${field}[${part}]`, String(partValue));
                else request.field(field, typeof value === 'string' ? value : JSON.stringify(value));
              }
            } else {
              request.send(body);
            }
            const res = await request;
            sent += 1;
            if (res.status >= 300)
              outcomes.push(
                `${method.toUpperCase()} ${template} (${contentType}) ${res.status}: ${res.text.slice(0, 300)}`,
              );
            if (res.status < 300 && method === 'post' && !created.has(template))
              created.set(template, res.body as Record<string, unknown>);
            remember(res.body);
          }
        }
      }
    }
    expect(outcomes).toEqual([]);
    expect(sent).toBeGreaterThan(20);
  });

  it('names the field that holds a missing file of a batch', async () => {
    const store = await t.http.post('/v1/vector_stores').set(bearer(t.adminKey)).send({ name: 'batches' }).expect(200);
    const batch = (body: object) =>
      t.http.post(`/v1/vector_stores/${store.body.id}/file_batches`).set(bearer(t.adminKey)).send(body).expect(404);
    expect((await batch({ file_ids: ['file-missing0'] })).body.error.param).toBe('file_ids[0]');
    expect((await batch({ files: [{ file_id: 'file-missing1' }] })).body.error.param).toBe('files[0].file_id');
  });
});
