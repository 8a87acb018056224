import {
  ApiException,
  AuthorizationV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node';
import type { Config } from '../../../config/config.schema';

const EXTENSIONS = 'extensions.agents.x-k8s.io';
const SANDBOXES = 'agents.x-k8s.io';
const VERSION = 'v1beta1';

/** Ready=False reasons after which a claim never becomes Ready (agent-sandbox's own clients stop on these). */
const TERMINAL_REASONS = new Set([
  'InvalidMetadata',
  'EnvVarsInjectionRejected',
  'VolumeClaimTemplatesError',
  'ClaimExpired',
  'SandboxExpired',
  'InvalidConfiguration',
]);

/** What Toolgate does to agent-sandbox objects: the verbs its Role must grant, checked at start-up. */
export const NEEDED_ACCESS: { group: string; resource: string; verb: string }[] = [
  ...['create', 'get', 'watch', 'patch', 'delete'].map((verb) => ({
    group: EXTENSIONS,
    resource: 'sandboxclaims',
    verb,
  })),
  { group: EXTENSIONS, resource: 'sandboxwarmpools', verb: 'list' },
  { group: SANDBOXES, resource: 'sandboxes', verb: 'get' },
];

/** A claimed sandbox, ready to be called. */
export interface ReadySandbox {
  name: string;
  podIP?: string;
}

export interface ClaimRequest {
  name: string;
  warmPool: string;
  /** When the controller deletes the claim itself, should Toolgate never come back to it (a crash). */
  shutdownTime: Date;
  labels: Record<string, string>;
}

type KubernetesObject = {
  metadata?: { name?: string };
  spec?: Record<string, unknown>;
  status?: {
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    sandbox?: { name?: string; Name?: string; podIPs?: string[] };
    podIPs?: string[];
  };
};

/**
 * The agent-sandbox API (v1beta1) as Toolgate uses it: SandboxClaims made, watched and deleted in one
 * namespace, warm pools listed to find a template's pool. Every request is bounded by `api_timeout`.
 */
export class SandboxClaims {
  readonly namespace: string;
  private readonly objects: CustomObjectsApi;
  private readonly authorization: AuthorizationV1Api;
  private readonly watcher: Watch;

  constructor(
    kubeConfig: KubeConfig,
    namespace: string,
    private readonly apiTimeout: number,
  ) {
    this.namespace = namespace;
    this.objects = kubeConfig.makeApiClient(CustomObjectsApi);
    this.authorization = kubeConfig.makeApiClient(AuthorizationV1Api);
    this.watcher = new Watch(kubeConfig);
  }

  /** The kubeconfig of `sandbox.kubernetes` (a file, else the default chain ending in-cluster) and its namespace. */
  static fromConfig(config: Config['sandbox']['kubernetes']): SandboxClaims {
    const kubeConfig = new KubeConfig();
    if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
    else kubeConfig.loadFromDefault();
    if (config.context) kubeConfig.setCurrentContext(config.context);
    if (!kubeConfig.getCurrentCluster()) throw new Error('the kubeconfig names no cluster for its current context');
    const namespace =
      config.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
    return new SandboxClaims(kubeConfig, namespace, config.api_timeout);
  }

  /** The verbs of NEEDED_ACCESS this identity lacks in the namespace (asked with SelfSubjectAccessReviews). */
  async missingAccess(): Promise<string[]> {
    const answers = await Promise.all(
      NEEDED_ACCESS.map(async (access) => {
        const review = await this.bounded(
          this.authorization.createSelfSubjectAccessReview({
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: { resourceAttributes: { namespace: this.namespace, ...access } },
            },
          }),
        );
        return review.status?.allowed ? undefined : `${access.verb} ${access.resource}.${access.group}`;
      }),
    );
    return answers.filter((missing): missing is string => missing !== undefined);
  }

  /** Warm pool name -> the SandboxTemplate it keeps sandboxes of. */
  async warmPools(): Promise<Map<string, string | undefined>> {
    const list = (await this.bounded(
      this.objects.listNamespacedCustomObject({
        group: EXTENSIONS,
        version: VERSION,
        namespace: this.namespace,
        plural: 'sandboxwarmpools',
      }),
    )) as { items?: { metadata?: { name?: string }; spec?: { sandboxTemplateRef?: { name?: string } } }[] };
    return new Map(
      (list.items ?? [])
        .filter((pool) => pool.metadata?.name)
        .map((pool) => [pool.metadata!.name!, pool.spec?.sandboxTemplateRef?.name]),
    );
  }

  /**
   * Claims a sandbox of the pool under the name given (so that it can be deleted even when the answer to the
   * create is lost). `shutdownPolicy: Delete` makes the controller delete it at `shutdownTime` whatever happens here.
   */
  async create(claim: ClaimRequest): Promise<void> {
    await this.bounded(
      this.objects.createNamespacedCustomObject({
        group: EXTENSIONS,
        version: VERSION,
        namespace: this.namespace,
        plural: 'sandboxclaims',
        body: {
          apiVersion: `${EXTENSIONS}/${VERSION}`,
          kind: 'SandboxClaim',
          metadata: { name: claim.name, labels: claim.labels },
          spec: {
            warmPoolRef: { name: claim.warmPool },
            lifecycle: { shutdownTime: rfc3339(claim.shutdownTime), shutdownPolicy: 'Delete' },
          },
        },
      }),
    );
  }

  /**
   * Moves the claim's shutdownTime (a session's claim, before each of its runs). A claim the controller has
   * deleted already answers "gone".
   */
  async extend(name: string, shutdownTime: Date): Promise<'extended' | 'gone'> {
    try {
      await this.bounded(
        this.objects.patchNamespacedCustomObject(
          {
            group: EXTENSIONS,
            version: VERSION,
            namespace: this.namespace,
            plural: 'sandboxclaims',
            name,
            body: { spec: { lifecycle: { shutdownTime: rfc3339(shutdownTime) } } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      return 'extended';
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return 'gone';
      throw error;
    }
  }

  /** Deletes the claim (and with it its Sandbox and pod); one already gone counts as deleted. */
  async delete(name: string): Promise<void> {
    try {
      await this.bounded(
        this.objects.deleteNamespacedCustomObject({
          group: EXTENSIONS,
          version: VERSION,
          namespace: this.namespace,
          plural: 'sandboxclaims',
          name,
          propagationPolicy: 'Background',
        }),
      );
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 404)) throw error;
    }
  }

  /**
   * Watches the claim until it is Ready with a sandbox, and answers that sandbox. Fails at once when the claim
   * reports a terminal reason or is deleted; `signal` ends the wait (the caller's deadline or cancellation).
   */
  async waitUntilReady(name: string, signal: AbortSignal): Promise<ReadySandbox> {
    const ready = await new Promise<KubernetesObject>((resolve, reject) => {
      let watch: AbortController | undefined;
      let settled = false;
      const settle = (error: Error | undefined, claim?: KubernetesObject) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        watch?.abort();
        if (error) reject(error);
        else resolve(claim!);
      };
      const onAbort = () => settle(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      const path = `/apis/${EXTENSIONS}/${VERSION}/namespaces/${this.namespace}/sandboxclaims`;
      const onEvent = (type: string, claim: KubernetesObject) => {
        if (type === 'DELETED') return settle(new Error(`the SandboxClaim ${name} was deleted before it was ready`));
        if (type === 'ERROR') return settle(new Error(`the watch of SandboxClaim ${name} failed`));
        const condition = claim.status?.conditions?.find((c) => c.type === 'Ready');
        if (condition?.status === 'True' && sandboxName(claim)) return settle(undefined, claim);
        if (condition?.status === 'False' && TERMINAL_REASONS.has(condition.reason ?? ''))
          settle(new Error(`the SandboxClaim ${name} failed: ${condition.reason}${detail(condition.message)}`));
      };
      // A watch without resourceVersion starts with the claim's current state, so nothing is missed.
      this.watcher
        .watch(path, { fieldSelector: `metadata.name=${name}` }, onEvent, (error: unknown) =>
          settle(
            new Error(
              `the watch of SandboxClaim ${name} ended before it was ready${error ? `: ${(error as Error).message}` : ''}`,
            ),
          ),
        )
        .then(
          (controller) => {
            watch = controller;
            if (settled) controller.abort();
          },
          (error: unknown) => settle(error as Error),
        );
      if (signal.aborted) onAbort();
    });
    const sandbox = sandboxName(ready)!;
    return { name: sandbox, podIP: ready.status?.sandbox?.podIPs?.[0] ?? (await this.sandboxPodIP(sandbox)) };
  }

  /** Older claims carry only the sandbox's name: its pod IP is on the Sandbox. */
  private async sandboxPodIP(name: string): Promise<string | undefined> {
    const sandbox = (await this.bounded(
      this.objects.getNamespacedCustomObject({
        group: SANDBOXES,
        version: VERSION,
        namespace: this.namespace,
        plural: 'sandboxes',
        name,
      }),
    )) as KubernetesObject;
    return sandbox.status?.podIPs?.[0];
  }

  /** The generated client has no timeout of its own: an API server that never answers fails after api_timeout. */
  private bounded<T>(request: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the Kubernetes API did not answer within ${this.apiTimeout} ms`)),
        this.apiTimeout,
      );
    });
    return Promise.race([request, timeout]).finally(() => clearTimeout(timer));
  }
}

/** One line about a failed API request: its HTTP status and the API's own message. */
export function describeApiError(error: unknown): string {
  if (error instanceof ApiException) {
    const body = typeof error.body === 'string' ? parseStatus(error.body) : (error.body as { message?: string });
    return `HTTP ${error.code}${body?.message ? `: ${String(body.message).slice(0, 300)}` : ''}`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return [(error as Error)?.message ?? String(error), cause?.code ?? cause?.message].filter(Boolean).join(': ');
}

function parseStatus(text: string): { message?: string } | undefined {
  try {
    return JSON.parse(text) as { message?: string };
  } catch {
    return undefined;
  }
}

function sandboxName(claim: KubernetesObject): string | undefined {
  return claim.status?.sandbox?.name ?? claim.status?.sandbox?.Name;
}

function detail(message: string | undefined): string {
  return message ? ` (${message.slice(0, 300)})` : '';
}

/** RFC 3339 in whole seconds, rounded up, as Kubernetes writes times. */
function rfc3339(date: Date): string {
  return new Date(Math.ceil(date.getTime() / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
}
