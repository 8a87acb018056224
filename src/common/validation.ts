import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

/** Finds the first failing field, depth first, and names it with its dotted path. */
function firstViolation(errors: ValidationError[], parent = ''): { path: string; message: string } | undefined {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      const message = Object.values(error.constraints)[0];
      return { path, message: message.replace(error.property, path) };
    }
    const nested = firstViolation(error.children ?? [], path);
    if (nested) return nested;
  }
  return undefined;
}

/** Request DTO validation: unknown fields are refused, and the error names the offending field as `param`. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => {
      const violation = firstViolation(errors) ?? { path: null, message: 'Invalid request' };
      return ApiError.invalid(violation.message, violation.path);
    },
  });
}
