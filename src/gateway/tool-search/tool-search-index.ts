import MiniSearch from 'minisearch';
import type { ToolDefinition } from '../../tools/tool-executor';
import { byServedName } from '../served-tool-order';
import { term, words } from './search-terms';

/** Text indexed per field is capped: descriptions and schemas come from untrusted sources. */
const MAX_FIELD_CHARS = 4000;
const MAX_SCHEMA_DEPTH = 4;
const MAX_SCHEMA_PROPERTIES = 200;

/** Field weights: a query word in the tool's name says most, one in a parameter's text least. */
const BOOST = { name: 3, description: 1.5, parameters: 1 };

interface IndexedTool {
  id: number;
  name: string;
  description: string;
  parameters: string;
}

export interface ToolMatch {
  definition: ToolDefinition;
  score: number;
}

/**
 * BM25 ranking (MiniSearch's BM25+) over one caller's effective tools: name, description, and the
 * names and descriptions of the parameters, with field weights and identifier-aware terms. Built from
 * the caller's own set on every search, so no other tenant's definitions are indexed, scored or
 * returned. Cost is linear in the size of that set; order is deterministic (score, then name).
 */
export class ToolSearchIndex {
  private readonly index = new MiniSearch<IndexedTool>({
    fields: ['name', 'description', 'parameters'],
    storeFields: [],
    tokenize: words,
    processTerm: term,
    searchOptions: {
      boost: BOOST,
      // "repo" finds "repository"; short words only match whole, or everything would match.
      prefix: (word) => word.length >= 4,
      fuzzy: (word) => (word.length >= 6 ? 1 : false),
      weights: { fuzzy: 0.3, prefix: 0.5 },
    },
  });

  constructor(private readonly definitions: readonly ToolDefinition[]) {
    this.index.addAll(
      definitions.map((definition, id) => ({
        id,
        name: definition.name,
        description: capped(definition.description ?? ''),
        parameters: capped(parameterText(definition.parameters)),
      })),
    );
  }

  search(query: string, limit: number): ToolMatch[] {
    return this.index
      .search(query)
      .map((hit) => ({ definition: this.definitions[hit.id as number], score: hit.score }))
      .sort((a, b) => b.score - a.score || byServedName(a.definition, b.definition))
      .slice(0, limit);
  }
}

/** Parameter names and descriptions, walked breadth-first within depth and count limits. */
export function parameterText(schema: unknown): string {
  const parts: string[] = [];
  let level: unknown[] = [schema];
  let seen = 0;
  for (let depth = 0; depth < MAX_SCHEMA_DEPTH && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (!isObject(node)) continue;
      const properties = isObject(node.properties) ? node.properties : {};
      for (const [name, property] of Object.entries(properties)) {
        if (++seen > MAX_SCHEMA_PROPERTIES) return parts.join(' ');
        parts.push(name);
        if (isObject(property)) {
          if (typeof property.description === 'string') parts.push(property.description.slice(0, 500));
          next.push(property, property.items);
        }
      }
    }
    level = next;
  }
  return parts.join(' ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function capped(text: string): string {
  return text.length > MAX_FIELD_CHARS ? text.slice(0, MAX_FIELD_CHARS) : text;
}
