import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { configSchema } from '../src/config/config.schema';
import { codeInterpreterConfigSchema } from '../src/tools/builtins/code-interpreter/code-interpreter.config';
import { fileSearchConfigSchema } from '../src/tools/builtins/file-search/file-search.config';
import { webSearchConfigSchema } from '../src/tools/builtins/web-search/web-search.config';

export const VALUES_SCHEMA = join(__dirname, '..', '..', 'helm/toolgate/values.schema.json');

/** The built-in providers' sections, which the service validates with each provider's own schema. */
const PROVIDER_SCHEMAS: Record<string, z.ZodType> = {
  code_interpreter: codeInterpreterConfigSchema,
  file_search: fileSearchConfigSchema,
  web_search: webSearchConfigSchema,
};

type JsonSchema = Record<string, unknown>;

/** Draft-07's formats; zod also writes names of its own (`starts_with`), always beside a `pattern` that checks them. */
const DRAFT_07_FORMATS = new Set(
  (
    'date-time date time email idn-email hostname idn-hostname ipv4 ipv6 uri uri-reference iri iri-reference ' +
    'uri-template json-pointer relative-json-pointer regex'
  ).split(' '),
);

/** `z.preprocess(read, schema)`: a pipe from a transform that only reads the written form ("8080" -> 8080). */
function isPreprocess(schema: unknown): boolean {
  return schema instanceof z.ZodPipe && schema.in instanceof z.ZodTransform;
}

/**
 * A schema as written in a YAML file. A pipe whose first stage is such a reader is described by its second stage
 * (`integer()` then `.pipe(z.number().max(65535))`), so the bounds, patterns and enums the service checks are
 * checked here too, where zod's own input mode keeps only the first stage. Any other pipe (a duration or size,
 * written as text and converted) keeps its first stage: the written form.
 */
function toJsonSchema(schema: z.core.$ZodType): JsonSchema {
  const options: Parameters<typeof z.toJSONSchema>[1] = {
    io: 'input',
    target: 'draft-07',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (typeof jsonSchema.format === 'string' && !DRAFT_07_FORMATS.has(jsonSchema.format)) delete jsonSchema.format;
      if (!(zodSchema instanceof z.ZodPipe) || !isPreprocess(zodSchema.in)) return;
      const described = toJsonSchema(zodSchema.out);
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
      Object.assign(jsonSchema, described);
    },
  };
  const { $schema: _dialect, ...described } = z.toJSONSchema(schema, options) as JsonSchema;
  return described;
}

/**
 * The JSON Schema of Toolgate's config.yaml, generated from the zod schemas the service validates it with at start,
 * so `helm install` (which checks values.schema.json) refuses a misspelt key or a wrong value before any pod starts.
 */
export function configJsonSchema(): JsonSchema {
  const schema = toJsonSchema(configSchema);
  const properties = schema.properties as Record<string, JsonSchema>;
  properties.builtins = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(PROVIDER_SCHEMAS).map(([name, s]) => [name, toJsonSchema(s)])),
    additionalProperties: false,
  };
  return {
    ...schema,
    description:
      "Toolgate's config.yaml (see config.example.yaml). Generated from src/config/config.schema.ts and the " +
      'built-in providers’ config schemas by `npm run helm:schema`; do not edit.',
  };
}

/** `npm run helm:schema`: writes the `config` part of helm/toolgate/values.schema.json; the rest is hand-written. */
function main(): void {
  const values = JSON.parse(readFileSync(VALUES_SCHEMA, 'utf8')) as { properties: Record<string, unknown> };
  values.properties.config = configJsonSchema();
  writeFileSync(VALUES_SCHEMA, `${JSON.stringify(values, null, 2)}\n`);
  console.log(`Wrote the config schema into ${VALUES_SCHEMA}`);
}

if (require.main === module) main();
