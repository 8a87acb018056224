import type { Response } from 'supertest';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  503: 'service_unavailable',
};

export interface ExpectedError {
  code: string | null;
  param?: string | null;
  type?: string;
}

/**
 * Asserts the OpenAI error envelope: exactly `{error: {message, type, param, code}}`, the status, a
 * request id, and nothing that looks like a stack trace.
 */
export function expectError(response: Response, status: number, expected: ExpectedError): void {
  expect({ status: response.status, body: response.body as unknown }).toEqual({
    status,
    body: {
      error: {
        message: expect.any(String),
        type: expected.type ?? TYPE_BY_STATUS[status],
        param: expected.param ?? null,
        code: expected.code,
      },
    },
  });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(response.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|\.js:\d+/);
}
