import { Injectable } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

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
  private readonly draft7 = addFormats(new Ajv({ allErrors: true, strict: false, validateSchema: true }));
  private readonly draft2020 = addFormats(new Ajv2020({ allErrors: true, strict: false, validateSchema: true }));
  private readonly byObject = new WeakMap<object, ValidateFunction>();
  private readonly byText = new Map<string, ValidateFunction>();

  /** Every violation of `value` against `schema`, or an empty list. */
  validate(schema: object, value: unknown): SchemaViolation[] {
    const validator = this.compile(schema);
    if (validator(value)) return [];
    return (validator.errors ?? []).map(describe);
  }

  /** Problems with a schema itself (checked against the JSON Schema meta-schema), or an empty list. */
  checkSchema(schema: unknown): SchemaViolation[] {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return [{ path: '$', message: 'must be a JSON Schema object' }];
    }
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

  private compile(schema: object): ValidateFunction {
    const cached = this.byObject.get(schema);
    if (cached) return cached;
    const text = JSON.stringify(schema);
    let validator = this.byText.get(text);
    if (!validator) {
      validator = this.engineFor(schema).compile(schema);
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
