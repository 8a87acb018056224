/** An upstream answer outgrew its cap while it was being read; reading stopped there. */
export class AnswerTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly what: 'event' | 'body',
  ) {
    super(
      what === 'event'
        ? `a streamed event (line) exceeded the limit of ${limit} bytes`
        : `the answer exceeded the limit of ${limit} bytes`,
    );
  }
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * A body passed on unchanged until more than `limit` bytes in all have arrived; then the stream errors with
 * AnswerTooLargeError and the source is cancelled (its socket released).
 */
export function capBody(limit: number, onTooLarge: TooLargeListener = () => undefined): ByteTransform {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) refuse(controller, new AnswerTooLargeError(limit, 'body'), onTooLarge);
      else controller.enqueue(chunk);
    },
  });
}

/**
 * A Server-Sent Events body re-cut into whole events: each chunk passed on ends at an event boundary (a blank
 * line), and an event still unterminated after `limit` bytes errors the stream with AnswerTooLargeError. Every
 * byte is looked at once and copied once, so what reads the events (the `openai` client, the MCP SDK's parser,
 * which both rescan their whole buffer on each chunk) never holds more than one event: linear in the answer,
 * where a hostile server's endless line would otherwise cost the square of its length.
 */
export function frameEvents(limit: number, onTooLarge: TooLargeListener = () => undefined): ByteTransform {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // Across chunks: whether the last byte seen ended a line (or nothing came yet), and whether it was a CR
  // whose LF (CRLF, one terminator) may open the next chunk; and whether that terminator ended an event.
  let atLineStart = true;
  let afterCr = false;
  let endedEvent = false;
  return new TransformStream({
    transform(chunk, controller) {
      let boundaryEnd = -1;
      let cursor = 0;
      let nextLf = chunk.indexOf(LF);
      let nextCr = chunk.indexOf(CR);
      while (nextLf >= 0 || nextCr >= 0) {
        const at = nextCr < 0 || (nextLf >= 0 && nextLf < nextCr) ? nextLf : nextCr;
        if (at > cursor) {
          atLineStart = false;
          afterCr = false;
        }
        if (chunk[at] === LF && afterCr) {
          afterCr = false;
          if (endedEvent) boundaryEnd = at + 1;
        } else {
          endedEvent = atLineStart;
          if (endedEvent) boundaryEnd = at + 1;
          atLineStart = true;
          afterCr = chunk[at] === CR;
        }
        cursor = at + 1;
        if (at === nextLf) nextLf = chunk.indexOf(LF, cursor);
        else nextCr = chunk.indexOf(CR, cursor);
      }
      if (chunk.byteLength > cursor) {
        atLineStart = false;
        afterCr = false;
      }
      if (boundaryEnd >= 0) {
        pending.push(chunk.subarray(0, boundaryEnd));
        controller.enqueue(pending.length === 1 ? pending[0] : Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
        chunk = chunk.subarray(boundaryEnd);
      }
      if (chunk.byteLength === 0) return;
      pending.push(chunk);
      pendingBytes += chunk.byteLength;
      if (pendingBytes > limit) {
        pending = [];
        refuse(controller, new AnswerTooLargeError(limit, 'event'), onTooLarge);
      }
    },
    flush(controller) {
      if (pending.length > 0) controller.enqueue(Buffer.concat(pending));
    },
  });
}

/**
 * The same response with its body capped while it is read: an event stream per event (it may stay open for
 * long), anything else in all. Status and headers are kept.
 */
export function capResponse(response: Response, limit: number, onTooLarge?: TooLargeListener): Response {
  if (!response.body) return response;
  const events = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
  const body = response.body.pipeThrough(events ? frameEvents(limit, onTooLarge) : capBody(limit, onTooLarge));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * A fetch whose every answer is capped as `capResponse` says; `onTooLarge` hears of each answer cut off, besides
 * its reader, who gets the error from the body.
 */
export function cappedFetch<F extends (url: string | URL, init?: RequestInit) => Promise<Response>>(
  fetch: F,
  limit: number,
  onTooLarge?: TooLargeListener,
): F {
  return (async (url: string | URL, init?: RequestInit) => capResponse(await fetch(url, init), limit, onTooLarge)) as F;
}

type ByteTransform = TransformStream<Uint8Array, Uint8Array>;
export type TooLargeListener = (error: AnswerTooLargeError) => void;

function refuse(
  controller: TransformStreamDefaultController<Uint8Array>,
  error: AnswerTooLargeError,
  onTooLarge: TooLargeListener,
): void {
  controller.error(error);
  onTooLarge(error);
}
