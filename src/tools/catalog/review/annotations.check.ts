import type { ReviewSubject } from '../auto-review';
import type { Findings } from './findings';

/**
 * MCP annotations are hints from the server, not guarantees, but a tool that says it may destroy data, or says
 * nothing (the protocol's defaults are `readOnlyHint: false`, `destructiveHint: true`), deserves a reviewer's
 * second look. Their texts (`title`) are scanned with the description; this check reads the hints.
 */
export function checkAnnotations(subject: ReviewSubject, findings: Findings): void {
  const annotations = subject.annotations;
  const hint = (key: string) => (annotations && typeof annotations[key] === 'boolean' ? annotations[key] : undefined);
  // destructiveHint only means something when the tool is not read-only.
  if (hint('readOnlyHint') === true || hint('destructiveHint') === false) return;
  if (hint('destructiveHint') === true) {
    findings.add(
      'destructive',
      4,
      'annotations declare the tool destructive (destructiveHint: true)',
      'check what the tool can delete or overwrite; restrict tenant access or rate-limit it',
    );
  } else if (subject.sourceType === 'mcp') {
    findings.add(
      'destructive',
      4,
      'MCP tool without readOnlyHint or destructiveHint: the protocol treats it as possibly destructive',
      'ask the server to annotate the tool (readOnlyHint / destructiveHint), or review what it can change',
    );
  }
}
