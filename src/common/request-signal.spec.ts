import { getEventListeners } from 'node:events';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { scopedSignalFetch } from './request-signal';

describe('scopedSignalFetch', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/slow') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: first\n\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('leaves no listener on the shared signal once each answer has been read', async () => {
    const shared = new AbortController();
    const fetch = scopedSignalFetch(globalThis.fetch);
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${url}/json`, { signal: shared.signal });
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('releases the shared signal when an answer is cancelled unread', async () => {
    const shared = new AbortController();
    const response = await scopedSignalFetch(globalThis.fetch)(`${url}/json`, { signal: shared.signal });
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    await response.body!.cancel();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('still aborts a request whose answer is being streamed when the shared signal fires', async () => {
    const shared = new AbortController();
    const response = await scopedSignalFetch(globalThis.fetch)(`${url}/slow`, { signal: shared.signal });
    const reader = response.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: first\n\n');
    shared.abort(new Error('transport closed'));
    await expect(reader.read()).rejects.toThrow('transport closed');
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('passes a request without a signal through untouched', async () => {
    const response = await scopedSignalFetch(globalThis.fetch)(`${url}/json`);
    expect(await response.json()).toEqual({ ok: true });
  });
});
