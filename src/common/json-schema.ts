import { Injectable } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { linearFormats, linearRegExpEngine, unsupportedPattern } from './linear-regexp';

export interface SchemaViolation {
  /** JSON path of the offending value, e.g. `$.items[2].name`. */
  path: string;
  message: string;
}

const DRAFT_2020 = /json-schema\.org\/draft\/2020-12/;

/**
 * JSON Schema validation for tool arguments and results: draft-07 by default, 2020-12 when the schema
 * says so. Each schema is compiled once and the validator cached (keyed by the schema object, and by its
 * text so equal schemas from different objects share one validator).
 */
@Injectable()
export class JsonSchemaValidator {
  // Tool schemas come from third parties (MCP servers) and carry extra keywords: strict mode would refuse them.
  private readonly draft7 = withLinearFormats(new Ajv(OPTIONS));
  private readonly draft2020 = withLinearFormats(new Ajv2020(OPTIONS));
  /** A validator, or why the schema cannot be compiled. */
  private readonly byObject = new WeakMap<object, ValidateFunction | string>();
  private readonly byText = new Map<string, ValidateFunction | string>();

  /**
   * Every violation of `value` against `schema`, or an empty list. A schema stored before its patterns were
   * refused (lookaround, backreferences) cannot be compiled: every value is reported as not matching it.
   */
  validate(schema: object, value: unknown): SchemaViolation[] {
    const validator = this.compile(schema);
    if (typeof validator === 'string') return [{ path: '$', message: `cannot be checked: the schema ${validator}` }];
    if (validator(value)) return [];
    return (validator.errors ?? []).map(describe);
  }

  /** Problems with a schema itself (checked against the JSON Schema meta-schema), or an empty list. */
  checkSchema(schema: unknown): SchemaViolation[] {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return [{ path: '$', message: 'must be a JSON Schema object' }];
    }
    const problems = schemaProblems(schema);
    if (problems.length > 0) return problems;
    const ajv = this.engineFor(schema);
    if (ajv.validateSchema(schema)) {
      try {
        ajv.compile(schema);
        return [];
      } catch (error) {
        return [{ path: '$', message: (error as Error).message }];
      }
    }
    return (ajv.errors ?? []).map(describe);
  }

  private compile(schema: object): ValidateFunction | string {
    const cached = this.byObject.get(schema);
    if (cached) return cached;
    const text = JSON.stringify(schema);
    let validator = this.byText.get(text);
    if (!validator) {
      const problem = schemaProblems(schema)[0];
      validator = problem ? `has ${problem.path} ${problem.message}` : this.engineFor(schema).compile(schema);
      this.byText.set(text, validator);
    }
    this.byObject.set(schema, validator);
    return validator;
  }

  private engineFor(schema: object): Ajv {
    const declared = (schema as { $schema?: unknown }).$schema;
    return typeof declared === 'string' && DRAFT_2020.test(declared) ? this.draft2020 : this.draft7;
  }
}

const OPTIONS = { allErrors: true, strict: false, validateSchema: true, code: { regExp: linearRegExpEngine } };

function withLinearFormats<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  for (const [name, format] of Object.entries(linearFormats(ajv.formats))) ajv.addFormat(name, format);
  return ajv;
}

/** Deeper schemas are refused before any recursive walk (ajv's compiler, the automated review) meets them. */
export const MAX_SCHEMA_DEPTH = 64;
/** Keywords whose values are data, not subschemas: a `pattern` key inside them is not a regular expression. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);
/** Keywords whose keys are names (of properties, definitions), so a property called "default" is still a schema. */
const NAME_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * Patterns that cannot run in linear time and nesting beyond MAX_SCHEMA_DEPTH, found by an iterative walk
 * (so that the walk itself is safe on any input), each with the JSON path of the keyword.
 */
export function schemaProblems(schema: unknown): SchemaViolation[] {
  const problems: SchemaViolation[] = [];
  const stack: { node: unknown; path: string; depth: number; named?: boolean }[] = [
    { node: schema, path: '$', depth: 0 },
  ];
  while (stack.length > 0) {
    const { node, path, depth, named } = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth > MAX_SCHEMA_DEPTH) {
      problems.push({ path, message: `is nested more than ${MAX_SCHEMA_DEPTH} levels deep` });
      continue;
    }
    const entries = Array.isArray(node)
      ? node.map((child, index) => [`[${index}]`, child] as const)
      : Object.entries(node as Record<string, unknown>).map(([key, child]) => [`.${key}`, child] as const);
    const object = Array.isArray(node) || named ? undefined : (node as Record<string, unknown>);
    if (typeof object?.pattern === 'string') {
      const message = unsupportedPattern(object.pattern);
      if (message) problems.push({ path: `${path}.pattern`, message });
    }
    const patternProperties = object?.patternProperties;
    if (patternProperties && typeof patternProperties === 'object' && !Array.isArray(patternProperties)) {
      for (const key of Object.keys(patternProperties)) {
        const message = unsupportedPattern(key);
        if (message) problems.push({ path: `${path}.patternProperties`, message });
      }
    }
    for (const [segment, child] of entries) {
      if (object && DATA_KEYWORDS.has(segment.slice(1))) continue;
      const key = segment.slice(1);
      stack.push({
        node: child,
        path: `${path}${segment}`,
        depth: depth + 1,
        named: !!object && NAME_KEYWORDS.has(key),
      });
    }
  }
  return problems;
}

/** "$.items[2].name: must be string" style messages; missing and unexpected properties are named. */
function describe(error: ErrorObject): SchemaViolation {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '$' + segments.map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`)).join('');
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    path += `.${(error.params as { missingProperty: string }).missingProperty}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    path += `.${(error.params as { additionalProperty: string }).additionalProperty}`;
    message = 'is not an allowed property';
  } else if (error.keyword === 'enum') {
    message += `: ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return { path, message };
}

/** One line listing every violation, for error messages. */
export function formatViolations(violations: SchemaViolation[]): string {
  return violations.map((v) => `${v.path} ${v.message}`).join('; ');
}
