import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

/**
 * class-validator checks a property's decorators bottom-up, so the first failure it lists is often a
 * bound ("must not be greater than 100") where the value is not even of the right type. These checks
 * explain a failure best and are reported first.
 */
const FUNDAMENTAL = [
  'whitelistValidation',
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isIn',
];

function bestMessage(constraints: Record<string, string>): string {
  const key = FUNDAMENTAL.find((name) => name in constraints) ?? Object.keys(constraints)[0];
  return constraints[key];
}

/** Finds the first failing field, depth first, and names it with its dotted path. */
function firstViolation(errors: ValidationError[], parent = ''): { path: string; message: string } | undefined {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      const message = bestMessage(error.constraints);
      return { path, message: message.replace(error.property, path) };
    }
    const nested = firstViolation(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}

/** Request bodies are JSON objects; an array would otherwise be validated as if it were one. */
class RequestValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && Array.isArray(value) && metadata.metatype && metadata.metatype !== Array) {
      throw ApiError.invalid('The request body must be a JSON object');
    }
    return (await super.transform(value, metadata)) as unknown;
  }
}

/** Request DTO validation: unknown fields are refused, and the error names the offending field as `param`. */
export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => {
      const violation = firstViolation(errors) ?? { path: null, message: 'Invalid request' };
      return ApiError.invalid(violation.message, violation.path);
    },
  });
}
