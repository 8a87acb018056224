import { AnswerTooLargeError, capBody, ChunkTransformer, frameEvents, transformBody } from './capped-stream';

/** Reads `chunks` through `transformer`; answers the chunks that came out, as text, or the error it failed with. */
async function through(transformer: ChunkTransformer, chunks: string[]): Promise<string[] | Error> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(Buffer.from(chunk));
      controller.close();
    },
  });
  const out: string[] = [];
  try {
    for await (const chunk of transformBody(source, transformer)) out.push(Buffer.from(chunk).toString());
  } catch (error) {
    return error as Error;
  }
  return out;
}

describe('frameEvents', () => {
  it('passes whole events on, however the bytes were cut', async () => {
    expect(await through(frameEvents(100), ['data: a\n\ndata: b\n', '\ndata: c'])).toEqual([
      'data: a\n\n',
      'data: b\n\n',
      'data: c',
    ]);
    expect(await through(frameEvents(100), ['da', 'ta: a', '\n', 'data: b\n', '\n'])).toEqual(['data: a\ndata: b\n\n']);
  });

  it('knows CRLF and CR line ends, a CRLF cut between chunks included', async () => {
    expect(await through(frameEvents(100), ['data: a\r\n\r', '\ndata: b\r\r'])).toEqual([
      'data: a\r\n\r',
      '\ndata: b\r\r',
    ]);
    // "\r\n" then "\n" is two line ends: the event ends at the second.
    expect(await through(frameEvents(100), ['data: a\r', '\n', '\nx'])).toEqual(['data: a\r\n\n', 'x']);
    // A CRLF is one line end, not an empty line.
    expect(await through(frameEvents(100), ['data: a\r\n', 'data: b\r\n'])).toEqual(['data: a\r\ndata: b\r\n']);
  });

  it('fails an event longer than the limit as soon as it is, not at its end', async () => {
    const error = await through(frameEvents(10), ['data: 1234', '56789', 'never read\n\n']);
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect((error as AnswerTooLargeError).message).toBe('a streamed event (line) exceeded the limit of 10 bytes');
    // Many short events add up to any size.
    expect(await through(frameEvents(10), Array<string>(50).fill('data: 1\n\n'))).toHaveLength(50);
  });
});

describe('capBody', () => {
  it('passes a body up to the limit and fails one past it', async () => {
    expect(await through(capBody(6), ['abc', 'def'])).toEqual(['abc', 'def']);
    expect(await through(capBody(6), ['abc', 'defg'])).toBeInstanceOf(AnswerTooLargeError);
  });
});

describe('transformBody', () => {
  it('cancels the source when the transformer fails the stream', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(Buffer.from('0123456789')),
      cancel: (reason) => void (cancelled = reason),
    });
    const reader = transformBody(source, capBody(25)).getReader();
    await reader.read();
    await reader.read();
    await expect(reader.read()).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(cancelled).toBeInstanceOf(AnswerTooLargeError);
  });
});
