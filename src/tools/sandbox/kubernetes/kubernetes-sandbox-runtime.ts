import { Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { SandboxRunOutcome, SandboxRunRequest } from '../sandbox-limits';
import { SandboxRuntime, SandboxSession } from '../sandbox-runtime';
import { KubernetesSandboxSession } from './kubernetes-sandbox-session';
import { describeApiError, ReadySandbox, SandboxClaims } from './sandbox-claims';
import { SandboxAddress } from './sandbox-server-client';

/** How often a refused runtime checks the API again, when calls keep coming. */
const RECHECK_INTERVAL = 10_000;

/**
 * Runs each call (or the calls of a session) in a sandbox of kubernetes-sigs/agent-sandbox: a SandboxClaim on
 * the template's warm pool, watched until Ready, then the entrypoint run by the sandbox server in the pod
 * (POST /execute), and the claim deleted whatever happened (see KubernetesSandboxSession). The claim carries a
 * shutdownTime, so the controller deletes one that a crash left behind. Start-up checks that the API answers and that this identity may do all of that; otherwise
 * every run is refused with that one-line reason.
 */
export class KubernetesSandboxRuntime extends SandboxRuntime {
  private readonly logger = new Logger('KubernetesSandboxRuntime');
  private unavailable: string | undefined = 'the Kubernetes check has not run yet';
  private claims: SandboxClaims | undefined;
  /** Catalog template -> warm pool, for templates configured by SandboxTemplate name (looked up once found). */
  private readonly pools = new Map<string, string>();
  private checkedAt = 0;
  private rechecking = false;

  constructor(private readonly config: AppConfig) {
    super();
  }

  async start(): Promise<void> {
    this.unavailable = await this.check();
    this.checkedAt = Date.now();
    if (this.unavailable) this.logger.error(`Sandbox tools are refused: ${this.unavailable}`);
    else this.logger.log(`Sandbox tools run in agent-sandbox SandboxClaims in namespace ${this.claims!.namespace}`);
  }

  /**
   * Why runs are refused, if they are. An API server that was down at start-up, or a Role bound afterwards,
   * should not need a restart: a call that finds runs refused starts the check again (in the background, at
   * most every RECHECK_INTERVAL), and a later call runs once it passes.
   */
  unavailableReason(): string | undefined {
    if (this.unavailable && this.claims && !this.rechecking && Date.now() - this.checkedAt >= RECHECK_INTERVAL) {
      this.rechecking = true;
      void this.check()
        .then((reason) => {
          if (!reason) this.logger.log('Sandbox tools run again: the Kubernetes check passes now');
          this.unavailable = reason;
        })
        .finally(() => {
          this.checkedAt = Date.now();
          this.rechecking = false;
        });
    }
    return this.unavailable;
  }

  knowsTemplate(template: string): boolean {
    return this.templateKey(template) !== undefined;
  }

  /** A session of one run: the claim is deleted when the run ends. */
  async run(request: SandboxRunRequest): Promise<SandboxRunOutcome> {
    const session = this.openSession();
    try {
      return await session.run(request);
    } finally {
      await session.release();
    }
  }

  openSession(): SandboxSession {
    const { limits, kubernetes } = this.config.sandbox;
    return new KubernetesSandboxSession({
      claims: this.claims!,
      limits,
      readyTimeout: kubernetes.ready_timeout,
      idleTimeout: kubernetes.idle_timeout,
      warmPoolOf: (template) => this.warmPoolOf(this.templateKey(template)!),
      addressOf: (sandbox) => this.addressOf(sandbox),
    });
  }

  /** Start-up: the kubeconfig loads, the API answers, RBAC allows every verb used, each template has a pool. */
  private async check(): Promise<string | undefined> {
    const { kubernetes } = this.config.sandbox;
    try {
      // Loaded once: a kubeconfig that does not load needs a fix and a restart.
      this.claims ??= SandboxClaims.fromConfig(kubernetes);
    } catch (error) {
      return `the kubeconfig cannot be loaded (${(error as Error).message})`;
    }
    const namespace = this.claims.namespace;
    try {
      const missing = await this.claims.missingAccess();
      if (missing.length)
        return `the service account may not ${missing.join(', ')} in namespace ${namespace}; bind it a Role that grants them (the Helm chart does with sandboxRbac.create)`;
      const pools = await this.claims.warmPools();
      for (const [template, target] of Object.entries(kubernetes.templates)) {
        if (target.warm_pool) {
          if (!pools.has(target.warm_pool))
            this.logger.warn(
              `Sandbox template '${template}': no SandboxWarmPool '${target.warm_pool}' in namespace ${namespace} yet`,
            );
          this.pools.set(template, target.warm_pool);
          continue;
        }
        const pool = [...pools].find(([, sandboxTemplate]) => sandboxTemplate === target.sandbox_template)?.[0];
        if (pool) this.pools.set(template, pool);
        else
          this.logger.warn(
            `Sandbox template '${template}': no SandboxWarmPool in namespace ${namespace} refers to SandboxTemplate '${target.sandbox_template}' yet`,
          );
      }
    } catch (error) {
      return `the Kubernetes API cannot be used (${describeApiError(error)}); is the agent-sandbox controller installed with its CRDs?`;
    }
    return undefined;
  }

  /** The configured template a run names; a run that names none gets `default_template`. */
  private templateKey(template: string): string | undefined {
    const { templates, default_template } = this.config.sandbox.kubernetes;
    const key = template === '' ? default_template : template;
    return key !== undefined && Object.hasOwn(templates, key) ? key : undefined;
  }

  /** A pool created after start-up is found on the first run that needs it. */
  private async warmPoolOf(template: string): Promise<string> {
    const known = this.pools.get(template);
    if (known) return known;
    const wanted = this.config.sandbox.kubernetes.templates[template].sandbox_template;
    const pools = await this.claims!.warmPools().catch((error: unknown) => {
      throw new Error(`the warm pools cannot be listed: ${describeApiError(error)}`);
    });
    const pool = [...pools].find(([, sandboxTemplate]) => sandboxTemplate === wanted)?.[0];
    if (!pool)
      throw new Error(
        `no SandboxWarmPool in namespace ${this.claims!.namespace} refers to SandboxTemplate '${wanted}'`,
      );
    this.pools.set(template, pool);
    return pool;
  }

  private addressOf(sandbox: ReadySandbox): SandboxAddress {
    const { port, router_url } = this.config.sandbox.kubernetes;
    if (router_url)
      return {
        url: new URL('/execute', router_url).toString(),
        headers: {
          'x-sandbox-id': sandbox.name,
          'x-sandbox-namespace': this.claims!.namespace,
          'x-sandbox-port': String(port),
          ...(sandbox.podIP ? { 'x-sandbox-pod-ip': sandbox.podIP } : {}),
        },
      };
    if (!sandbox.podIP) throw new Error(`the sandbox ${sandbox.name} is ready but has no pod IP`);
    const host = sandbox.podIP.includes(':') ? `[${sandbox.podIP}]` : sandbox.podIP;
    return { url: `http://${host}:${port}/execute`, headers: {} };
  }
}
