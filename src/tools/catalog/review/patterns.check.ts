import { nonLinearPatternRisk } from '../pattern-risk';
import { Findings } from './findings';
import { walk } from './schema';
import { excerpt } from './text';

export function checkPatterns(schema: unknown, path: string, findings: Findings): void {
  walk(schema, path, (node, nodePath) => {
    const patterns: [string, string][] = [];
    if (typeof node.pattern === 'string') patterns.push([`pattern of ${nodePath}`, node.pattern]);
    const patternProperties = node.patternProperties;
    if (patternProperties && typeof patternProperties === 'object' && !Array.isArray(patternProperties))
      for (const key of Object.keys(patternProperties)) patterns.push([`patternProperties of ${nodePath}`, key]);
    for (const [where, pattern] of patterns) {
      const risk = nonLinearPatternRisk(pattern);
      if (!risk) continue;
      findings.add(
        'unsafe_pattern',
        10,
        `${where} can take exponential time to match (${risk}): ${JSON.stringify(excerpt(pattern, 60))}`,
        `rewrite the ${where} without nested quantifiers, overlapping alternatives, backreferences or lookaround; a server that validates with it can be stalled by one request`,
      );
    }
  });
}
