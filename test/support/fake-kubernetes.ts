import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const EXTENSIONS = '/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/';
const SANDBOXES = '/apis/agents.x-k8s.io/v1beta1/namespaces/';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

type KubernetesObject = {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; generateName?: string; [key: string]: unknown };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

/** How the fake controller answers a new claim. */
export type ClaimBehaviour =
  { ready: 'after'; ms: number } | { ready: 'never' } | { ready: 'failed'; reason: string; message: string };

export interface FakeKubernetesOptions {
  namespace: string;
  token: string;
  /** Warm pool name -> the SandboxTemplate it refers to. */
  warmPools: Record<string, string>;
  /** "verb resource" pairs this identity is not granted: access reviews say no, the requests get 403. */
  denied?: string[];
  /** Starts the pod of a Ready sandbox at this IP; the answer stops it (the claim's deletion). */
  startPod?: (ip: string) => Promise<() => void>;
}

/**
 * An in-process Kubernetes API server for the agent-sandbox calls Toolgate makes, on loopback, in the real
 * REST wire format (JSON objects, `Status` errors, NDJSON watch streams), with a fake controller that makes
 * each new SandboxClaim Ready with a sandbox of its own: a pod started by `startPod` on a loopback address of its
own (127.0.0.2, 127.0.0.3, ...), stopped when the claim is deleted.
 */
export class FakeKubernetes {
  /** Every claim body as it was created, in order. */
  readonly created: KubernetesObject[] = [];
  /** Names of the claims deleted, in order. */
  readonly deleted: string[] = [];
  /** Claims that exist now. */
  readonly claims = new Map<string, KubernetesObject>();
  /** Merge patches received, by claim name, in order. */
  readonly patches: { name: string; patch: KubernetesObject }[] = [];
  /** The pods running now, by claim name. */
  readonly pods = new Map<string, () => void>();
  private nextPodIP = 2;
  /** What the controller does with the next claims. */
  behaviour: ClaimBehaviour = { ready: 'after', ms: 20 };
  /** Whether Ready claims carry their pod IPs (v1beta1) or only the sandbox's name (older controllers). */
  podIPsOnClaim = true;
  private readonly watchers = new Set<{ name: string; res: ServerResponse }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server!: Server;
  url = '';

  constructor(readonly options: FakeKubernetesOptions) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: Error) => this.status(res, 500, 'InternalError', error.message));
    });
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig file pointing at this server, with its token and namespace. */
  kubeconfig(): string {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-kubeconfig-'));
    const file = join(dir, 'config');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        // Plain HTTP on loopback: the client allows it only with TLS verification off.
        clusters: [{ name: 'fake', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'toolgate', user: { token: this.options.token } }],
        contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'toolgate', namespace: this.options.namespace } }],
        'current-context': 'fake',
      }),
    );
    return file;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const { res } of this.watchers) res.end();
    for (const stop of this.pods.values()) stop();
    this.pods.clear();
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.options.token}`)
      return this.status(res, 401, 'Unauthorized', 'Unauthorized');
    const url = new URL(req.url!, 'http://fake');
    const body =
      req.method === 'POST' || req.method === 'PATCH'
        ? (JSON.parse(await readBody(req)) as KubernetesObject)
        : undefined;
    if (req.method === 'POST' && url.pathname === ACCESS_REVIEWS) return this.accessReview(res, body!);

    const claims = `${EXTENSIONS}${this.options.namespace}/sandboxclaims`;
    const pools = `${EXTENSIONS}${this.options.namespace}/sandboxwarmpools`;
    const sandboxes = `${SANDBOXES}${this.options.namespace}/sandboxes/`;
    const resource = url.pathname.startsWith(claims)
      ? 'sandboxclaims'
      : url.pathname === pools
        ? 'sandboxwarmpools'
        : url.pathname.startsWith(sandboxes)
          ? 'sandboxes'
          : undefined;
    if (!resource) return this.status(res, 404, 'NotFound', `the server could not find ${url.pathname}`);
    const watch = url.searchParams.get('watch') === 'true';
    const verb = watch ? 'watch' : verbOf(req.method!, url.pathname, claims);
    if (this.isDenied(verb, resource))
      return this.status(
        res,
        403,
        'Forbidden',
        `${resource}.extensions.agents.x-k8s.io is forbidden: User "system:serviceaccount:${this.options.namespace}:toolgate" cannot ${verb} resource "${resource}"`,
      );

    if (resource === 'sandboxwarmpools') return this.json(res, 200, this.poolList());
    if (resource === 'sandboxes') return this.sandbox(res, url.pathname.slice(sandboxes.length));
    const name = url.pathname.slice(claims.length + 1);
    if (req.method === 'POST' && name === '') return this.createClaim(res, body!);
    if (req.method === 'GET' && name === '' && watch)
      return this.watchClaim(res, url.searchParams.get('fieldSelector'));
    if (req.method === 'GET' && name) {
      const claim = this.claims.get(name);
      return claim ? this.json(res, 200, claim) : this.notFound(res, name);
    }
    if (req.method === 'DELETE' && name) return this.deleteClaim(res, name);
    if (req.method === 'PATCH' && name) {
      if (req.headers['content-type'] !== 'application/merge-patch+json')
        return this.status(res, 415, 'UnsupportedMediaType', `${req.headers['content-type']} is not supported here`);
      const claim = this.claims.get(name);
      if (!claim) return this.notFound(res, name);
      this.patches.push({ name, patch: body! });
      Object.assign(claim, mergePatch(claim, body!));
      return this.json(res, 200, claim);
    }
    return this.status(res, 405, 'MethodNotAllowed', `${req.method} is not supported here`);
  }

  private accessReview(res: ServerResponse, review: KubernetesObject): void {
    const attributes = (review.spec?.resourceAttributes ?? {}) as { verb?: string; resource?: string };
    const allowed = !this.isDenied(attributes.verb ?? '', attributes.resource ?? '');
    this.json(res, 201, { ...review, status: { allowed, ...(allowed ? {} : { reason: '' }) } });
  }

  private isDenied(verb: string, resource: string): boolean {
    return (this.options.denied ?? []).includes(`${verb} ${resource}`);
  }

  private poolList() {
    return {
      apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
      kind: 'SandboxWarmPoolList',
      metadata: { resourceVersion: '1' },
      items: Object.entries(this.options.warmPools).map(([name, template]) => ({
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxWarmPool',
        metadata: { name, namespace: this.options.namespace },
        spec: { replicas: 2, sandboxTemplateRef: { name: template } },
      })),
    };
  }

  private sandbox(res: ServerResponse, name: string): void {
    const claim = [...this.claims.values()].find(
      (c) => (c.status?.sandbox as { Name?: string } | undefined)?.Name === name,
    );
    if (!claim) return this.notFound(res, name);
    this.json(res, 200, {
      apiVersion: 'agents.x-k8s.io/v1beta1',
      kind: 'Sandbox',
      metadata: { name, namespace: this.options.namespace },
      status: { conditions: [{ type: 'Ready', status: 'True' }], podIPs: [(claim.status as { podIP?: string }).podIP] },
    });
  }

  private createClaim(res: ServerResponse, claim: KubernetesObject): void {
    const name = claim.metadata.name || `${claim.metadata.generateName ?? ''}${Math.random().toString(36).slice(2, 7)}`;
    if (this.claims.has(name))
      return this.status(
        res,
        409,
        'AlreadyExists',
        `sandboxclaims.extensions.agents.x-k8s.io "${name}" already exists`,
      );
    const stored: KubernetesObject = {
      ...claim,
      metadata: { ...claim.metadata, name, namespace: this.options.namespace, uid: `uid-${name}` },
      status: {},
    };
    this.created.push(structuredClone(stored));
    this.claims.set(name, stored);
    this.json(res, 201, stored);
    this.reconcile(name);
  }

  /** The fake controller: what agent-sandbox does once a claim exists. */
  private reconcile(name: string): void {
    const behaviour = this.behaviour;
    if (behaviour.ready === 'never') return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.makeReady(name, behaviour);
      },
      behaviour.ready === 'after' ? behaviour.ms : 10,
    );
    this.timers.add(timer);
  }

  private async makeReady(name: string, behaviour: ClaimBehaviour): Promise<void> {
    if (!this.claims.has(name)) return;
    const podIP = `127.0.${this.nextPodIP >> 8}.${this.nextPodIP & 255}`;
    this.nextPodIP++;
    if (behaviour.ready !== 'failed' && this.options.startPod) {
      const stop = await this.options.startPod(podIP);
      if (!this.claims.has(name)) return stop();
      this.pods.set(name, stop);
    }
    const claim = this.claims.get(name)!;
    const sandbox = `${name}-sbx`;
    claim.status =
      behaviour.ready === 'failed'
        ? { conditions: [{ type: 'Ready', status: 'False', reason: behaviour.reason, message: behaviour.message }] }
        : {
            conditions: [{ type: 'Ready', status: 'True', reason: 'SandboxReady' }],
            sandbox: this.podIPsOnClaim ? { name: sandbox, podIPs: [podIP] } : { Name: sandbox },
            // Not a field of the claim: where this fake keeps the pod IP its Sandbox reports.
            ...(this.podIPsOnClaim ? {} : { podIP }),
          };
    this.notify('MODIFIED', claim);
  }

  private watchClaim(res: ServerResponse, fieldSelector: string | null): void {
    const name = /^metadata\.name=(.+)$/.exec(fieldSelector ?? '')?.[1];
    if (!name) return this.status(res, 400, 'BadRequest', 'this fake watches one claim, by metadata.name');
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const watcher = { name, res };
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
    const claim = this.claims.get(name);
    if (claim) res.write(`${JSON.stringify({ type: 'ADDED', object: claim })}\n`);
  }

  private deleteClaim(res: ServerResponse, name: string): void {
    const claim = this.claims.get(name);
    if (!claim) return this.notFound(res, name);
    this.claims.delete(name);
    this.deleted.push(name);
    this.pods.get(name)?.();
    this.pods.delete(name);
    this.notify('DELETED', claim);
    this.json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name } });
  }

  private notify(type: string, claim: KubernetesObject): void {
    for (const watcher of this.watchers)
      if (watcher.name === claim.metadata.name) watcher.res.write(`${JSON.stringify({ type, object: claim })}\n`);
  }

  private notFound(res: ServerResponse, name: string): void {
    this.status(res, 404, 'NotFound', `sandboxclaims.extensions.agents.x-k8s.io "${name}" not found`);
  }

  private status(res: ServerResponse, code: number, reason: string, message: string): void {
    this.json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  }

  private json(res: ServerResponse, code: number, value: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }
}

function verbOf(method: string, path: string, claims: string): string {
  const named = path.startsWith(`${claims}/`) || path.includes('/sandboxes/');
  if (method === 'POST') return 'create';
  if (method === 'DELETE') return 'delete';
  if (method === 'PATCH') return 'patch';
  return named ? 'get' : 'list';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON merge patch (RFC 7386), as the API server applies application/merge-patch+json. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
