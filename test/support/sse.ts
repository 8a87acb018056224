export interface SseEvent {
  event?: string;
  data: string;
}

/** Reads a Server-Sent Events body into events, calling `onEvent` as each one arrives. */
export async function readSse(response: Response, onEvent?: (event: SseEvent) => void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary: number;
    while ((boundary = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data += line.slice(6);
      }
      events.push(event);
      onEvent?.(event);
    }
  }
  return events;
}
