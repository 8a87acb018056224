import type { AutoReviewResult } from '../catalog.types';

export const CAPS = {
  unrestricted: 15,
  dangerous_parameter: 20,
  secret_parameter: 40,
  permissions: 50,
  hidden_capability: 50,
  poisoning: 100,
  exfiltration: 60,
  impersonation: 60,
  /** Patterns that a backtracking engine (the tool's own server may use one) can take exponential time on. */
  unsafe_pattern: 20,
  /**
   * A tool that may destroy data (`destructiveHint` true, or an MCP tool without annotations: the protocol's
   * default). A reminder for the reviewer, never enough alone: with the whole surface cap and every mention,
   * a tool keeps 100 - 20 - 4 - 6 = 70, the approval threshold.
   */
  destructive: 4,
  /** URLs, addresses and file names merely mentioned: documentation links are common. */
  mentions: 6,
};
export type Kind = keyof typeof CAPS;

/** Surface findings together never take off more than this, so they alone leave a tool above 70. */
export const SURFACE_KINDS: Kind[] = ['unrestricted', 'dangerous_parameter'];
export const SURFACE_CAP = 20;

export interface Finding {
  kind: Kind;
  penalty: number;
  flag: string;
  suggestion: string;
}

/** The sentence-level checks written for one attack family each (see bench/review-heldout.bench.ts). */
export const FAMILY_CHECKS = [
  'tool_redirection',
  'command_execution',
  'fake_authority',
  'undisclosed_behaviour',
  'preference_manipulation',
  'social_engineering',
  'argument_hijacking',
] as const;
export type FamilyCheck = (typeof FAMILY_CHECKS)[number];

export class Findings {
  private readonly list: Finding[] = [];
  private readonly flags = new Set<string>();

  /**
   * `only`: the kinds of finding kept; the others are dropped (output scanning keeps the model-facing ones).
   * `without`: family checks not run (the held-out protocol measures what the other checks catch).
   */
  constructor(
    private readonly only?: Kind[],
    private readonly without: readonly FamilyCheck[] = [],
  ) {}

  /** Whether a family check is to run. */
  runs(check: FamilyCheck): boolean {
    return !this.without.includes(check);
  }

  add(kind: Kind, penalty: number, flag: string, suggestion: string): void {
    if (this.only && !this.only.includes(kind)) return;
    // The same finding reached through two routes (anyOf branches, repeated $defs) counts once.
    if (this.flags.has(flag)) return;
    this.flags.add(flag);
    this.list.push({ kind, penalty, flag, suggestion });
  }

  summarize(): AutoReviewResult {
    const byKind = new Map<Kind, number>();
    for (const f of this.list) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + f.penalty);
    let surface = 0;
    let penalty = 0;
    for (const [kind, total] of byKind) {
      const capped = Math.min(total, CAPS[kind]);
      if (SURFACE_KINDS.includes(kind)) surface += capped;
      else penalty += capped;
    }
    penalty += Math.min(surface, SURFACE_CAP);
    return {
      score: Math.max(0, 100 - penalty),
      flags: this.list.map((f) => f.flag),
      suggestions: [...new Set(this.list.map((f) => f.suggestion))],
    };
  }
}
