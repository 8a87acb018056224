import { startApp, TestApp } from './support/app';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
}

describe('API documentation', () => {
  let app: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    app = await startApp('postgres');
    const response = await app.http.get('/openapi.json');
    expect(response.status).toBe(200);
    document = response.body as OpenApiDocument;
  });
  afterAll(() => app?.close());

  const errorSchema = (operation: Operation, status: string) =>
    operation.responses[status]?.content?.['application/json']?.schema.$ref;

  it('documents the API key routes with bearer security and error responses in the envelope', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.schemas.ErrorResponseDto).toBeDefined();
    const create = document.paths['/v1/admin/api_keys'].post;
    expect(create.security).toEqual([{ bearer: [] }]);
    for (const status of ['400', '401', '403']) {
      expect(errorSchema(create, status)).toBe('#/components/schemas/ErrorResponseDto');
    }
    expect(errorSchema(document.paths['/v1/admin/api_keys/{id}'].delete, '404')).toBe(
      '#/components/schemas/ErrorResponseDto',
    );
  });

  it('puts every /v1 operation behind bearer auth with a documented 401', () => {
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
      );
    expect(operations.length).toBeGreaterThanOrEqual(6);
    for (const { path, method, operation } of operations) {
      expect({ path, method, security: operation.security, unauthorized: errorSchema(operation, '401') }).toEqual({
        path,
        method,
        security: [{ bearer: [] }],
        unauthorized: '#/components/schemas/ErrorResponseDto',
      });
    }
  });

  it('leaves the open routes open and keeps /metrics out of the document', () => {
    expect(document.paths['/healthz'].get.security).toBeUndefined();
    expect(document.paths['/readyz'].get.security).toBeUndefined();
    expect(document.paths['/metrics']).toBeUndefined();
  });

  it('serves Swagger UI at /docs without a credential', async () => {
    const response = await app.http.get('/docs').redirects(1);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('swagger-ui');
  });
});
