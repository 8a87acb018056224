import type { ResponseEvents } from './response-loop';
import type { Item, ResponseObject } from './response-object';

/** `file_search_call` results are shown only when the request's `include` asks for them, as OpenAI does. */
export function presentItem(item: Item, include: readonly string[]): Item {
  if (item.type !== 'file_search_call' || include.includes('file_search_call.results')) return item;
  return { ...item, results: null };
}

export function presentResponse(response: ResponseObject, include: readonly string[]): ResponseObject {
  return { ...response, output: response.output.map((item) => presentItem(item, include)) };
}

/** Events as the client sees them: their items and response objects presented for `include`. */
export function presentingEvents(events: ResponseEvents, include: readonly string[]): ResponseEvents {
  return {
    send: (type, payload) =>
      events.send(type, {
        ...payload,
        ...(payload.item !== undefined && { item: presentItem(payload.item as Item, include) }),
        ...(payload.response !== undefined && {
          response: presentResponse(payload.response as ResponseObject, include),
        }),
      }),
  };
}
