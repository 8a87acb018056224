import { ApiError } from '../../common/api-error';
import type { CallResult } from './call-result';
import type { ToolCallObject } from './tool-call';

/**
 * A CallResult as /v1/tool_calls answers it: the tool_call (HTTP 200, whatever the call's status), or
 * the HTTP error of a call that cannot be answered with one (unknown tool and invalid call: 400, rate
 * limited: 429 with Retry-After).
 */
export function toolCallAnswer(result: CallResult): ToolCallObject {
  switch (result.status) {
    case 'unknown_tool':
      throw ApiError.invalid(result.message, 'name', 'unknown_tool');
    case 'invalid':
      throw ApiError.invalid(result.message, result.param, result.code);
    case 'rate_limited':
      throw new ApiError(429, 'rate_limit_error', result.toolCall.error!.message, 'rate_limited', null, {
        'Retry-After': String(Math.max(1, Math.ceil(result.retryAfterSeconds))),
      });
    default:
      return result.toolCall;
  }
}
