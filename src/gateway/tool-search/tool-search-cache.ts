import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { TtlCache } from '../../common/ttl-cache';
import type { ToolDefinition } from '../../tools/tool-executor';
import { ToolSearchIndex } from './tool-search-index';

/** Indexes kept: one per distinct effective set recently searched (tenants, profiles). */
const CACHED_INDEXES = 16;

/**
 * Building an index costs far more than a search (tokenizing every description and schema), and /mcp is
 * stateless, so indexes are kept here between requests, keyed by a digest of exactly the definitions
 * they hold. Callers share an index only when their effective sets are identical, so a search still sees
 * nothing outside the caller's own set; any change to a definition or to the set gives a new digest.
 */
@Injectable()
export class ToolSearchCache {
  /** No ttl: a digest names its definitions exactly, so an index never goes out of date, only out of use. */
  private readonly indexes = new TtlCache<string, ToolSearchIndex>(Infinity, CACHED_INDEXES);

  indexFor(definitions: readonly ToolDefinition[]): ToolSearchIndex {
    const key = digest(definitions);
    let index = this.indexes.get(key);
    if (!index) {
      index = new ToolSearchIndex(definitions);
      this.indexes.set(key, index);
    }
    return index;
  }
}

/**
 * Digests of parameter schemas, by schema object: the catalog hands out the same object for as long as a
 * tool is unchanged, so only a changed or new schema is serialized again.
 */
const schemaDigests = new WeakMap<object, string>();

function digest(definitions: readonly ToolDefinition[]): string {
  const hash = createHash('sha256');
  for (const definition of definitions) {
    hash.update(definition.name).update('\0');
    hash.update(definition.description ?? '').update('\0');
    hash.update(schemaDigest(definition.parameters)).update('\0');
  }
  return hash.digest('base64url');
}

function schemaDigest(schema: ToolDefinition['parameters']): string {
  let known = schemaDigests.get(schema);
  if (known === undefined) {
    known = createHash('sha256')
      .update(JSON.stringify(schema) ?? '')
      .digest('base64url');
    schemaDigests.set(schema, known);
  }
  return known;
}
