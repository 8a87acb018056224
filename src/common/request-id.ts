import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's correlation id when it is sane, otherwise mints one; either way it is echoed back. */
export function requestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers[REQUEST_ID_HEADER];
  const id = typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}
