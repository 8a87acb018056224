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
export function capBody(limit: number, onTooLarge: TooLargeListener = () => undefined): ChunkTransformer {
  let size = 0;
  return {
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) refuse(controller, new AnswerTooLargeError(limit, 'body'), onTooLarge);
      else controller.enqueue(chunk);
    },
  };
}

/**
 * A Server-Sent Events body re-cut into whole events: each chunk passed on ends at an event boundary (a blank
 * line), and an event still unterminated after `limit` bytes errors the stream with AnswerTooLargeError. Every
 * byte is looked at once and copied once, so what reads the events (the `openai` client, the MCP SDK's parser,
 * which both rescan their whole buffer on each chunk) never holds more than one event: linear in the answer,
 * where a hostile server's endless line would otherwise cost the square of its length.
 */
export function frameEvents(limit: number, onTooLarge: TooLargeListener = () => undefined): ChunkTransformer {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // Across chunks: whether the last byte seen ended a line (or nothing came yet), and whether it was a CR
  // whose LF (CRLF, one terminator) may open the next chunk; and whether that terminator ended an event.
  let atLineStart = true;
  let afterCr = false;
  let endedEvent = false;
  return {
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
  };
}

/**
 * The same response with its body capped while it is read: an event stream per event (it may stay open for
 * long), anything else in all. Status and headers are kept.
 */
export function capResponse(response: Response, limit: number, onTooLarge?: TooLargeListener): Response {
  if (!response.body) return response;
  const events = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
  const body = transformBody(response.body, events ? frameEvents(limit, onTooLarge) : capBody(limit, onTooLarge));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * `body` with each chunk passed through `transformer` as it is read; when the transformer errors the stream, the
 * source is cancelled. A pulled stream rather than `pipeThrough` a TransformStream, whose piping machinery cost
 * about 90 µs per answer on the call path (a wrapper that pulls costs under 10).
 */
export function transformBody(
  body: ReadableStream<Uint8Array>,
  transformer: ChunkTransformer,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let failure: unknown;
      let passed = false;
      const out: ChunkController = {
        enqueue: (chunk) => {
          passed = true;
          controller.enqueue(chunk);
        },
        error: (error) => (failure ??= error),
      };
      // A pull that passes nothing on is not called again: read on until a chunk is passed, the end or a failure.
      for (;;) {
        const { done, value } = await reader.read();
        if (done) transformer.flush?.(out);
        else transformer.transform(value, out);
        if (failure !== undefined) {
          controller.error(failure);
          await reader.cancel(failure).catch(() => undefined);
          return;
        }
        if (done) return controller.close();
        if (passed) return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
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

/** What a transformer may do with the stream it feeds: pass a chunk on, or fail the stream. */
export interface ChunkController {
  enqueue(chunk: Uint8Array): void;
  error(error: unknown): void;
}

/** One step of a body's reading: each chunk as it arrives, then the end. */
export interface ChunkTransformer {
  transform(chunk: Uint8Array, controller: ChunkController): void;
  flush?(controller: ChunkController): void;
}
export type TooLargeListener = (error: AnswerTooLargeError) => void;

function refuse(controller: ChunkController, error: AnswerTooLargeError, onTooLarge: TooLargeListener): void {
  controller.error(error);
  onTooLarge(error);
}
