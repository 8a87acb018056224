import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the message names the problem and `param` the field (`nesting_too_deep`: JSON nested too deep).',
  403: 'Forbidden for this caller (for example an admin-only field); `param` names the field where there is one.',
  404: 'Not found (also answered for objects of another tenant).',
  409: 'Conflict with the current state.',
  413: 'The request body or file is too large.',
  429: 'Rate limited; see the Retry-After header.',
  503: 'A dependency is unavailable.',
};

/** Documents the error answers a route can give, each in the OpenAI envelope. */
export const ApiErrors = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto })),
  );
