import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { StoredSecretIndex } from './stored-secret-index';

/** Chains remembered at once; the oldest is forgotten first. */
const MAX_CHAINS = 10_000;
/** Sensitive values remembered per chain; later ones are not. */
const MAX_VALUES_PER_CHAIN = 256;
/** A chain not extended for this long is forgotten. */
const CHAIN_TTL_MS = 15 * 60_000;

interface Chain {
  index: StoredSecretIndex;
  values: number;
  touchedAt: number;
}

/**
 * Sensitive values that came out of results within one chain of calls (a response run, one caller's
 * consecutive calls), kept as keyed hashes only (StoredSecretIndex), so that a later call sending one of them
 * out can be told. Bounded: at most MAX_CHAINS chains of MAX_VALUES_PER_CHAIN values, each forgotten after
 * CHAIN_TTL_MS without use. In memory of one replica: a chain is one response run or one client's requests,
 * which a load balancer may spread; what another replica saw is not known here.
 */
@Injectable()
export class ChainMemory {
  private readonly chains = new Map<string, Chain>();

  constructor(private readonly clock: Clock) {}

  remember(chainId: string, source: string, value: string): void {
    const now = this.clock.now().getTime();
    let chain = this.live(chainId, now);
    if (!chain) {
      if (this.chains.size >= MAX_CHAINS) this.chains.delete(this.chains.keys().next().value!);
      chain = { index: new StoredSecretIndex('chained_leak'), values: 0, touchedAt: now };
    }
    // Re-inserted, so the Map's order stays least recently used first.
    this.chains.delete(chainId);
    this.chains.set(chainId, chain);
    chain.touchedAt = now;
    if (chain.values >= MAX_VALUES_PER_CHAIN) return;
    chain.values += 1;
    chain.index.add({ name: source, value });
  }

  /** The chain's index of sensitive values, when it has any. */
  indexOf(chainId: string): StoredSecretIndex | undefined {
    return this.live(chainId, this.clock.now().getTime())?.index;
  }

  private live(chainId: string, now: number): Chain | undefined {
    const chain = this.chains.get(chainId);
    if (chain && now - chain.touchedAt > CHAIN_TTL_MS) {
      this.chains.delete(chainId);
      return undefined;
    }
    return chain;
  }
}
