import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { SandboxLimits, SandboxRunOutcome, SandboxRunRequest } from '../sandbox-limits';
import type { SandboxSession } from '../sandbox-runtime';
import { describeApiError, ReadySandbox, SandboxClaims } from './sandbox-claims';
import { execute, fileFields, SandboxAddress } from './sandbox-server-client';

/** How long releasing a claim may hold up the caller; the controller reaps it at its shutdownTime if this fails. */
const RELEASE_WAIT = 5_000;

const ABORTED: SandboxRunOutcome = { ended: 'stopped', reason: 'aborted', stderr: '' };

/** What a session needs of its runtime. */
export interface ClaimHost {
  claims: SandboxClaims;
  limits: SandboxLimits;
  readyTimeout: number;
  idleTimeout: number;
  /** The warm pool of a run's template (looked up when not known yet). */
  warmPoolOf(template: string): Promise<string>;
  addressOf(sandbox: ReadySandbox): SandboxAddress;
}

/** Why a run stopped before the sandbox answered. */
class Stopped extends Error {
  constructor(readonly reason: 'wall_time' | 'aborted' | 'ready_timeout') {
    super(reason);
  }
}

/** The session's claim: made by its first run, its sandbox then called by every run until release(). */
interface Claim {
  name: string;
  warmPool: string;
  template: string;
  address?: SandboxAddress;
}

/**
 * One SandboxClaim for the runs of a session (a single call is a session of one run). The first run creates
 * the claim and waits until it is Ready; each later run first moves its shutdownTime on, then calls the same
 * pod, whose work and files directories persist. release() stops a run still going and deletes the claim.
 * Runs come one at a time (SandboxRunner queues them).
 */
export class KubernetesSandboxSession implements SandboxSession {
  private readonly logger = new Logger('KubernetesSandboxSession');
  private claim?: Claim;
  /** The pool of the last claim made, for the message of a claim that was never Ready. */
  private warmPool?: string;
  private current?: { stop: AbortController; done: Promise<unknown> };
  private released = false;

  constructor(private readonly host: ClaimHost) {}

  async run(request: SandboxRunRequest): Promise<SandboxRunOutcome> {
    // A call cancelled while it waited for a slot claims nothing; neither does one after release().
    if (this.released || request.signal.aborted) return ABORTED;
    const stop = new AbortController();
    const halt = (reason: Stopped['reason']) => stop.abort(new Stopped(reason));
    const wallTimer = setTimeout(() => halt('wall_time'), this.host.limits.wall_time);
    const onAbort = () => halt('aborted');
    request.signal.addEventListener('abort', onAbort, { once: true });
    const started = Date.now();
    const done = this.runIn(request, started, stop.signal, halt);
    this.current = { stop, done };
    try {
      return await done;
    } catch (error) {
      const reason = stop.signal.aborted ? (stop.signal.reason as Stopped).reason : undefined;
      if (reason === 'wall_time' || reason === 'aborted') return { ended: 'stopped', reason, stderr: '' };
      if (reason === 'ready_timeout')
        throw new Error(
          `no sandbox of warm pool '${this.warmPool}' became ready within ${this.host.readyTimeout} ms (sandbox.kubernetes.ready_timeout); its claim was released`,
          { cause: error },
        );
      throw new Error(`the sandbox run failed: ${describeApiError(error)}`, { cause: error });
    } finally {
      clearTimeout(wallTimer);
      request.signal.removeEventListener('abort', onAbort);
      this.current = undefined;
    }
  }

  async release(): Promise<void> {
    this.released = true;
    const current = this.current;
    if (current) {
      current.stop.abort(new Stopped('aborted'));
      await current.done.catch(() => undefined);
    }
    await this.releaseClaim();
  }

  private async runIn(
    request: SandboxRunRequest,
    started: number,
    signal: AbortSignal,
    halt: (reason: Stopped['reason']) => void,
  ): Promise<SandboxRunOutcome> {
    const { limits } = this.host;
    const address = await this.sandboxFor(request.template, signal, halt);
    if (this.released || signal.aborted) return ABORTED;
    const remaining = limits.wall_time - (Date.now() - started);
    return execute(
      address,
      {
        entrypoint: request.command,
        stdin: request.stdin,
        env: request.env,
        timeout_seconds: Math.max(1, Math.floor(remaining / 1000)),
        max_output_bytes: limits.max_output_bytes,
        ...fileFields(request.files, request.collect),
      },
      signal,
    );
  }

  /** The session's sandbox: claimed by the first run, kept alive for each later one. */
  private async sandboxFor(
    template: string,
    signal: AbortSignal,
    halt: (reason: Stopped['reason']) => void,
  ): Promise<SandboxAddress> {
    const { claims } = this.host;
    if (this.claim?.address) {
      if (this.claim.template !== template)
        throw new Error(`this sandbox is of template '${this.claim.template}', not '${template}'`);
      if ((await claims.extend(this.claim.name, this.shutdownTime())) === 'gone')
        throw new Error(
          `the sandbox of this session is gone (its SandboxClaim ${this.claim.name} was deleted, e.g. after sandbox.kubernetes.idle_timeout)`,
        );
      return this.claim.address;
    }
    const claim: Claim = {
      name: `toolgate-${randomBytes(6).toString('hex')}`,
      warmPool: await this.host.warmPoolOf(template),
      template,
    };
    this.claim = claim;
    this.warmPool = claim.warmPool;
    try {
      await claims.create({
        name: claim.name,
        warmPool: claim.warmPool,
        shutdownTime: this.shutdownTime(),
        labels: { 'app.kubernetes.io/managed-by': 'toolgate', 'toolgate.dev/template': template },
      });
      const readyTimer = setTimeout(() => halt('ready_timeout'), this.host.readyTimeout);
      try {
        claim.address = this.host.addressOf(await claims.waitUntilReady(claim.name, signal));
      } finally {
        clearTimeout(readyTimer);
      }
      return claim.address;
    } catch (error) {
      // A claim that never served a run is given back at once; the session's next run makes a new one.
      await this.releaseClaim();
      throw error;
    }
  }

  /** When the controller deletes the claim itself, should Toolgate never come back to it (a crash, a lost session). */
  private shutdownTime(): Date {
    return new Date(Date.now() + this.host.limits.wall_time + this.host.idleTimeout);
  }

  /** Deletes the claim; a failure is logged, not the call's: the claim's shutdownTime reaps it. */
  private async releaseClaim(): Promise<void> {
    const claim = this.claim;
    this.claim = undefined;
    if (!claim) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.host.claims.delete(claim.name),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${RELEASE_WAIT} ms`)), RELEASE_WAIT);
        }),
      ]);
    } catch (error) {
      this.logger.warn(
        `SandboxClaim ${claim.name} could not be deleted (${describeApiError(error)}); the controller deletes it at its shutdownTime`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
}
