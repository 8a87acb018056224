import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** Swagger UI at /docs and the OpenAPI document at /openapi.json. */
export function setupOpenApi(app: INestApplication, version: string): void {
  const config = new DocumentBuilder()
    .setTitle('Toolgate')
    .setDescription(
      'Managed tool registry and gateway for AI agents. Every /v1 route takes `Authorization: Bearer <API key or JWT>`; ' +
        'errors use the OpenAI envelope `{"error": {"message", "type", "param", "code"}}`; lists use cursor pagination ' +
        '(`limit`, `after`, `before`, `order`). A JSON body (or `arguments` string) nested deeper than ' +
        '`server.max_json_depth` levels is refused with 400 `nesting_too_deep`, `param` naming the path of the too-deep value.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key (tg_...) or a JWT.' })
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, config), {
    jsonDocumentUrl: 'openapi.json',
    swaggerOptions: { persistAuthorization: true },
  });
}
