type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that gives each request its own AbortSignal, tied to the caller's signal only while that request is
 * in flight: until its answer's body has been read to the end, cancelled or has failed.
 *
 * The MCP SDK's HTTP transports pass one long-lived signal (the transport's) to every request, and fetch
 * leaves an abort listener on the signal it is given until the request object is garbage-collected. On a
 * pooled connection serving calls all day those listeners pile up on the one signal (Node warns past 1,500).
 * Here that signal carries at most one listener per request still open, removed as soon as the request ends.
 */
export function scopedSignalFetch<F extends Fetch>(fetch: F): F {
  return (async (url: string | URL, init?: RequestInit) => {
    const shared = init?.signal;
    if (!shared) return fetch(url, init);
    const own = new AbortController();
    const forward = () => own.abort(shared.reason);
    if (shared.aborted) forward();
    else shared.addEventListener('abort', forward, { once: true });
    const release = () => shared.removeEventListener('abort', forward);
    try {
      return releasedWhenRead(await fetch(url, { ...init, signal: own.signal }), release);
    } catch (error) {
      release();
      throw error;
    }
  }) as F;
}

/** The same response, calling `release` once its body is done with (read to the end, cancelled or failed). */
function releasedWhenRead(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
