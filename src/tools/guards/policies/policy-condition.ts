import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { urlHostsIn } from './url-hosts';

/**
 * Policy conditions in CEL, with @marcbachmann/cel-js: a maintained, dependency-free CEL implementation for
 * JavaScript (parser, type checker and evaluator, with structural limits on the AST). `cel-js` (the other
 * package of that name) has seen no release in two years. A condition is compiled once, when the policy is
 * written; calls only evaluate it.
 *
 * Cost. CEL has no loops and no recursion; its only iteration is the comprehension macros (`all`, `exists`,
 * `exists_one`, `map`, `filter`). A condition's worst-case cost is estimated at write time as its node count
 * with every node inside a comprehension weighted by the largest list it may walk (ASSUMED_LIST_SIZE per
 * level of nesting), and a condition over MAX_COST is refused: one comprehension over the arguments is fine,
 * a comprehension nested in another (quadratic in the arguments) is not. Regular expressions (`matches`) are
 * refused too: the library runs them on JavaScript's backtracking engine, which caller-controlled text can
 * stall. Evaluation is synchronous and, with those bounds, linear in the call's arguments.
 */

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
/** What one comprehension level is assumed to walk: a generous list in a call's arguments. */
export const ASSUMED_LIST_SIZE = 10_000;
/** The largest estimated cost accepted (about a millisecond of evaluation). */
export const MAX_COST = 1_000_000;
const MAX_CONDITION_NODES = 2_000;
const MAX_CONDITION_LENGTH = 8_192;

export class PolicyConditionError extends Error {
  constructor(
    message: string,
    /** 0-based character offset in the condition. */
    readonly position: number,
  ) {
    super(`${message} (at position ${position})`);
  }
}

export type CompiledCondition = (activation: Record<string, unknown>) => unknown;

const environment = new Environment({ limits: { maxAstNodes: MAX_CONDITION_NODES, maxDepth: 64 } })
  .registerVariable('tool', 'map')
  .registerVariable('arguments', 'dyn')
  .registerVariable('identity', 'map')
  .registerVariable('request', 'map')
  // Every URL host named in any string of a value (arguments): allow-lists of destinations.
  .registerFunction('hosts(dyn): list<string>', (value: unknown) => urlHostsIn(value));

/** Compiles a condition, or throws PolicyConditionError naming the position of the first problem. */
export function compileCondition(condition: string): CompiledCondition {
  if (condition.length > MAX_CONDITION_LENGTH)
    throw new PolicyConditionError(
      `the condition is longer than ${MAX_CONDITION_LENGTH} characters`,
      MAX_CONDITION_LENGTH,
    );
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = environment.parse(condition);
  } catch (error) {
    throw asConditionError(error);
  }
  const check = parsed.check();
  if (!check.valid) throw asConditionError(check.error);
  if (check.type !== 'bool' && check.type !== 'dyn')
    throw new PolicyConditionError(`the condition must be a boolean, not ${check.type}`, 0);
  const cost = costOf(parsed.ast);
  if (cost > MAX_COST) {
    throw new PolicyConditionError(
      `the condition's worst-case cost (${cost}) exceeds the limit of ${MAX_COST}: comprehensions (all, exists, map, filter) must not be nested`,
      firstNestedComprehension(parsed.ast) ?? 0,
    );
  }
  return (activation) => parsed(activation);
}

function asConditionError(error: unknown): PolicyConditionError {
  const cel = error as { summary?: string; range?: { start: number }; message?: string } | undefined;
  return new PolicyConditionError(cel?.summary ?? cel?.message ?? String(error), cel?.range?.start ?? 0);
}

/** Walks the AST (iteratively) for its weighted node count, refusing `matches` on the way. */
function costOf(root: ASTNode): number {
  let cost = 0;
  const stack: { node: ASTNode; weight: number }[] = [{ node: root, weight: 1 }];
  while (stack.length > 0) {
    const { node, weight } = stack.pop()!;
    cost += weight;
    const method = methodOf(node);
    if (method === 'matches')
      throw new PolicyConditionError(
        'matches() is not allowed: use startsWith, endsWith, contains or hosts()',
        node.start,
      );
    const inner = method !== undefined && COMPREHENSIONS.has(method) ? weight * ASSUMED_LIST_SIZE : weight;
    for (const child of childrenOf(node))
      stack.push({ node: child, weight: child === receiverOf(node) ? weight : inner });
  }
  return cost;
}

function firstNestedComprehension(root: ASTNode): number | undefined {
  const stack: { node: ASTNode; depth: number }[] = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const method = methodOf(node);
    const isComprehension = method !== undefined && COMPREHENSIONS.has(method);
    if (isComprehension && depth >= 1) return node.start;
    for (const child of childrenOf(node))
      stack.push({ node: child, depth: isComprehension && child !== receiverOf(node) ? depth + 1 : depth });
  }
  return undefined;
}

/** `rcall` nodes are method calls: args = [name, receiver, [arguments]]. */
function methodOf(node: ASTNode): string | undefined {
  return node.op === 'rcall' || node.op === 'call' ? String((node.args as unknown[])[0]) : undefined;
}

function receiverOf(node: ASTNode): unknown {
  return node.op === 'rcall' ? (node.args as unknown[])[1] : undefined;
}

function childrenOf(node: ASTNode): ASTNode[] {
  const children: ASTNode[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object' && 'op' in value) children.push(value as ASTNode);
  };
  visit(node.args);
  return children;
}
