import { Injectable, Optional } from '@nestjs/common';
import type { ToolDefinition } from '../../tools/tool-executor';
import { byServedName } from '../served-tool-order';
import { ToolEmbeddings } from './tool-embeddings';
import { ToolSearchCache } from './tool-search-cache';

/** Reciprocal rank fusion's constant: ranks past the first few weigh about the same (Cormack et al., 2009). */
const RRF_K = 60;

/**
 * search_tools' ranking of one caller's effective tools. BM25 alone, or, when the file_search embedding
 * service is configured, BM25 fused with the cosine ranking of the tools' embeddings by reciprocal rank
 * fusion, so a query that shares no word with a tool can still find it. A failing or slow embedding
 * service costs that search its vector ranking, never the search.
 */
@Injectable()
export class ToolSearch {
  constructor(
    private readonly indexes: ToolSearchCache,
    @Optional() private readonly embeddings?: ToolEmbeddings,
  ) {}

  async search(
    definitions: readonly ToolDefinition[],
    query: string,
    limit: number,
    signal?: AbortSignal,
  ): Promise<ToolDefinition[]> {
    const lexical = this.indexes
      .indexFor(definitions)
      .search(query, definitions.length)
      .map((match) => match.definition);
    const similarities = await this.embeddings?.similarities(query, definitions, signal);
    if (!similarities) return lexical.slice(0, limit);
    const semantic = definitions
      .map((definition, i) => ({ definition, similarity: similarities[i] }))
      // Orthogonal or opposite says nothing in common: such a tool is no match at all.
      .filter((match) => match.similarity > 0)
      .sort((a, b) => b.similarity - a.similarity || byServedName(a.definition, b.definition))
      .map((match) => match.definition);
    return fuse([lexical, semantic]).slice(0, limit);
  }
}

/** Sum of 1 / (k + rank) over the rankings a tool appears in; ties by name. */
function fuse(rankings: ToolDefinition[][]): ToolDefinition[] {
  const scores = new Map<ToolDefinition, number>();
  for (const ranking of rankings) {
    ranking.forEach((definition, rank) => {
      scores.set(definition, (scores.get(definition) ?? 0) + 1 / (RRF_K + rank + 1));
    });
  }
  return [...scores.entries()]
    .sort(([a, scoreA], [b, scoreB]) => scoreB - scoreA || byServedName(a, b))
    .map(([definition]) => definition);
}
