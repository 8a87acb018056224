import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Stand-ins for the remote search services (SearXNG, Brave, Tavily, Serper): a real HTTP server on
 * 127.0.0.1 answering in each service's documented JSON shape, with switchable failures. The only mocks
 * in the web_search tests; everything of ours runs for real against them.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body of a POST, if any. */
  body: unknown;
}

export type FakeReply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; text: string; headers?: Record<string, string> }
  /** Accept the request and never answer. */
  | 'hang';

export type FakeHandler = (request: RecordedRequest) => FakeReply;

export interface Hit {
  title: string;
  url: string;
  snippet: string;
}

/** Response bodies as each service documents them. */
export const bodies = {
  searxng: (hits: Hit[]) => ({
    query: 'q',
    number_of_results: hits.length,
    results: hits.map((h, i) => ({
      title: h.title,
      url: h.url,
      content: h.snippet,
      engine: 'duckduckgo',
      engines: ['duckduckgo'],
      positions: [i + 1],
      score: 1,
      category: 'general',
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  }),
  brave: (hits: Hit[]) => ({
    type: 'search',
    query: { original: 'q' },
    web: {
      type: 'search',
      results: hits.map((h) => ({
        title: h.title,
        url: h.url,
        description: h.snippet,
        is_source_local: false,
        language: 'en',
        profile: { name: new URL(h.url).hostname },
      })),
      family_friendly: true,
    },
  }),
  tavily: (hits: Hit[]) => ({
    query: 'q',
    follow_up_questions: null,
    answer: null,
    images: [],
    results: hits.map((h, i) => ({
      title: h.title,
      url: h.url,
      content: h.snippet,
      score: 0.9 - i / 100,
      raw_content: null,
    })),
    response_time: 0.42,
  }),
  serper: (hits: Hit[]) => ({
    searchParameters: { q: 'q', type: 'search', engine: 'google' },
    organic: hits.map((h, i) => ({ title: h.title, link: h.url, snippet: h.snippet, position: i + 1 })),
    relatedSearches: [],
  }),
};

export type ServiceName = keyof typeof bodies;

/** `count` distinct hits on example domains: "<tag> result 1" at https://site1.example.com/<tag>/1 ... */
export function hits(tag: string, count: number): Hit[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `${tag} result ${i + 1}`,
    url: `https://site${i + 1}.example.com/${tag}/${i + 1}`,
    snippet: `snippet ${i + 1} about ${tag}`,
  }));
}

export class FakeSearchServer {
  readonly requests: RecordedRequest[] = [];
  /** Requests left hanging whose connection the client closed (it gave up or was cancelled). */
  abandoned = 0;
  private handler: FakeHandler;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    handler: FakeHandler,
  ) {
    this.handler = handler;
  }

  /** Starts a server answering every request with `handler`. */
  static async start(handler: FakeHandler): Promise<FakeSearchServer> {
    const holder: { fake?: FakeSearchServer } = {};
    const server = createServer((req, res) => void holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.fake = new FakeSearchServer(server, `http://127.0.0.1:${port}`, handler);
    return holder.fake;
  }

  /** A server speaking `service`'s documented shape with these hits. */
  static serving(service: ServiceName, found: Hit[]): Promise<FakeSearchServer> {
    return FakeSearchServer.start(() => ({ json: bodies[service](found) }));
  }

  respondWith(handler: FakeHandler): void {
    this.handler = handler;
  }

  async close(): Promise<void> {
    const hanging = [...this.hanging];
    this.hanging.clear();
    for (const res of hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: raw ? (JSON.parse(raw) as unknown) : undefined,
    };
    this.requests.push(recorded);
    const reply = this.handler(recorded);
    if (reply === 'hang') {
      this.hanging.add(res);
      res.on('close', () => {
        if (this.hanging.delete(res)) this.abandoned++;
      });
      return;
    }
    const text = 'json' in reply ? JSON.stringify(reply.json) : reply.text;
    res.writeHead(reply.status ?? 200, {
      'content-type': 'json' in reply ? 'application/json' : 'text/plain',
      ...reply.headers,
    });
    res.end(text);
  }
}
