import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Identity } from '../../tenancy/request-context';
import { EffectiveToolChanges } from '../../tools/invocation/effective-tool-changes';
import { ToolDispatcher } from '../../tools/invocation/tool-dispatcher';
import { byServedName } from '../served-tool-order';

/** Beyond this many open listen streams per replica a new one is refused (each holds a socket and a set). */
export const MAX_LISTENERS = 10_000;

export interface ToolListListener {
  identity: Identity;
  /** The caller's effective tool set changed since the last call (or since it subscribed). */
  changed(): void;
  /** The replica is shutting down: end the subscription gracefully. */
  close(): void;
}

interface Subscription {
  listener: ToolListListener;
  /** Digest of the caller's effective definitions as last seen; undefined until first computed. */
  digest?: Promise<string>;
}

/**
 * Who listens for notifications/tools/list_changed (subscriptions/listen with toolsListChanged), and when
 * to tell them. Every catalog change (approval, quarantine, revocation, bundle or assignment edit, source
 * refresh) is announced through ChangeEvents on every replica; on each, every listener's effective set is
 * recomputed from the in-memory catalog and compared with the one it last saw, so a caller hears only of
 * changes to its own tools, never of another tenant's.
 */
@Injectable()
export class ToolListSubscriptions implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ToolListSubscriptions');
  private readonly subscriptions = new Set<Subscription>();
  private checking?: Promise<void>;
  private recheck = false;

  constructor(
    private readonly dispatcher: ToolDispatcher,
    changes: EffectiveToolChanges,
  ) {
    changes.onChange(() => this.catalogChanged());
  }

  get full(): boolean {
    return this.subscriptions.size >= MAX_LISTENERS;
  }

  /** Starts watching; the returned function stops it (the client closed its stream). */
  add(listener: ToolListListener): () => void {
    const subscription: Subscription = { listener };
    subscription.digest = this.digestOf(listener.identity);
    // A failed first read leaves the digest unknown: the next change then counts as one.
    subscription.digest.catch(() => (subscription.digest = undefined));
    this.subscriptions.add(subscription);
    return () => this.subscriptions.delete(subscription);
  }

  beforeApplicationShutdown(): void {
    for (const { listener } of this.subscriptions) listener.close();
    this.subscriptions.clear();
  }

  /** Changes arriving while a comparison runs fold into one more pass after it. */
  private catalogChanged(): void {
    if (this.subscriptions.size === 0) return;
    if (this.checking) {
      this.recheck = true;
      return;
    }
    this.checking = this.compareAll().finally(() => {
      this.checking = undefined;
      if (this.recheck) {
        this.recheck = false;
        this.catalogChanged();
      }
    });
  }

  private async compareAll(): Promise<void> {
    for (const subscription of [...this.subscriptions]) {
      try {
        const before = await subscription.digest?.catch(() => undefined);
        const after = await this.digestOf(subscription.listener.identity);
        subscription.digest = Promise.resolve(after);
        if (before !== after && this.subscriptions.has(subscription)) subscription.listener.changed();
      } catch (error) {
        this.logger.warn(`Could not compare a subscriber's tool set: ${(error as Error).message}`);
      }
    }
  }

  private async digestOf(identity: Identity): Promise<string> {
    const tools = (await this.dispatcher.effectiveTools(identity)).sort(byServedName);
    const hash = createHash('sha256');
    for (const tool of tools) hash.update(JSON.stringify(tool.definition)).update('\n');
    return hash.digest('base64url');
  }
}
