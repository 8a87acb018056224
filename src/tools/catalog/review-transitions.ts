import type { SecurityStatus } from './catalog.types';

/**
 * The review workflow: unreviewed -> reviewed -> approved | blocked, approved -> blocked,
 * blocked -> approved, and any state -> blocked.
 */
const ALLOWED: Record<SecurityStatus, SecurityStatus[]> = {
  unreviewed: ['reviewed', 'blocked'],
  reviewed: ['approved', 'blocked'],
  approved: ['blocked'],
  blocked: ['approved', 'blocked'],
};

export function allowedDecisions(from: SecurityStatus): SecurityStatus[] {
  return ALLOWED[from];
}

export function canTransition(from: SecurityStatus, to: SecurityStatus): boolean {
  return ALLOWED[from].includes(to);
}
