import { ApiError } from '../../../../common/api-error';

export const COMPARISON_TYPES = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'] as const;
export const COMPOUND_TYPES = ['and', 'or'] as const;
type ComparisonType = (typeof COMPARISON_TYPES)[number];
type Scalar = string | number | boolean;

export interface ComparisonFilter {
  type: ComparisonType;
  key: string;
  value: Scalar | Scalar[];
}
export interface CompoundFilter {
  type: (typeof COMPOUND_TYPES)[number];
  filters: Filter[];
}
/** OpenAI's attribute filters: comparisons combined with and/or. */
export type Filter = ComparisonFilter | CompoundFilter;

const MAX_DEPTH = 8;
const MAX_NODES = 100;

/** Positional parameters ($1, $2, …) collected while SQL is built. */
export class SqlParams {
  constructor(readonly values: unknown[] = []) {}

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Checks a filter's shape and values; problems are 400s naming the offending path. */
export function parseFilter(raw: unknown, param = 'filters'): Filter {
  let nodes = 0;
  const visit = (value: unknown, path: string, depth: number): Filter => {
    if (++nodes > MAX_NODES) throw ApiError.invalid(`filters may hold at most ${MAX_NODES} conditions`, param);
    if (depth > MAX_DEPTH) throw ApiError.invalid(`filters may nest at most ${MAX_DEPTH} levels`, path);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw ApiError.invalid(`${path} must be a filter object`, path);
    }
    const node = value as Record<string, unknown>;
    if ((COMPOUND_TYPES as readonly unknown[]).includes(node.type)) {
      if (!Array.isArray(node.filters) || node.filters.length === 0) {
        throw ApiError.invalid(`${path}.filters must be a non-empty array`, `${path}.filters`);
      }
      extraKeys(node, ['type', 'filters'], path);
      return {
        type: node.type as CompoundFilter['type'],
        filters: node.filters.map((child, i) => visit(child, `${path}.filters[${i}]`, depth + 1)),
      };
    }
    if (!(COMPARISON_TYPES as readonly unknown[]).includes(node.type)) {
      throw ApiError.invalid(
        `${path}.type must be one of ${[...COMPARISON_TYPES, ...COMPOUND_TYPES].join(', ')}`,
        `${path}.type`,
      );
    }
    extraKeys(node, ['type', 'key', 'value'], path);
    const type = node.type as ComparisonType;
    if (typeof node.key !== 'string' || node.key.length === 0 || node.key.length > 64) {
      throw ApiError.invalid(`${path}.key must be an attribute name of 1 to 64 characters`, `${path}.key`);
    }
    const where = `${path}.value`;
    const list = type === 'in' || type === 'nin';
    if (list) {
      if (!Array.isArray(node.value) || node.value.length === 0 || !node.value.every(isScalar)) {
        throw ApiError.invalid(`${where} must be a non-empty array of strings, numbers or booleans for ${type}`, where);
      }
    } else if (!isScalar(node.value)) {
      throw ApiError.invalid(`${where} must be a string, a number or a boolean`, where);
    } else if (typeof node.value === 'boolean' && type !== 'eq' && type !== 'ne') {
      throw ApiError.invalid(`${where} must be a number or a string for ${type}`, where);
    }
    return { type, key: node.key, value: node.value as Scalar | Scalar[] };
  };
  return visit(raw, param, 0);
}

const OPERATORS: Record<'gt' | 'gte' | 'lt' | 'lte', string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * SQL for a filter over a jsonb attributes column. Comparisons are between jsonb values of the same JSON
 * type (numbers numerically, strings as text), so no cast can fail; a missing attribute matches only ne/nin.
 */
export function compileFilter(filter: Filter, column: string, params: SqlParams): string {
  if (filter.type === 'and' || filter.type === 'or') {
    const parts = filter.filters.map((child) => compileFilter(child, column, params));
    return `(${parts.join(filter.type === 'and' ? ' AND ' : ' OR ')})`;
  }
  const comparison = filter as ComparisonFilter;
  const attribute = `(${column} -> ${params.add(comparison.key)})`;
  const json = (value: Scalar) => `${params.add(JSON.stringify(value))}::jsonb`;
  switch (comparison.type) {
    case 'eq':
      return `COALESCE(${attribute} = ${json(comparison.value as Scalar)}, false)`;
    case 'ne':
      return `NOT COALESCE(${attribute} = ${json(comparison.value as Scalar)}, false)`;
    case 'in':
      return `COALESCE(${attribute} IN (${(comparison.value as Scalar[]).map(json).join(', ')}), false)`;
    case 'nin':
      return `NOT COALESCE(${attribute} IN (${(comparison.value as Scalar[]).map(json).join(', ')}), false)`;
    default: {
      const value = comparison.value as Scalar;
      const jsonType = typeof value === 'number' ? 'number' : 'string';
      return `(jsonb_typeof(${attribute}) = '${jsonType}' AND ${attribute} ${OPERATORS[comparison.type]} ${json(value)})`;
    }
  }
}

function isScalar(value: unknown): value is Scalar {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  );
}

function extraKeys(node: Record<string, unknown>, allowed: string[], path: string): void {
  const extra = Object.keys(node).find((key) => !allowed.includes(key));
  if (extra) throw ApiError.invalid(`${path}.${extra} is not a filter field`, `${path}.${extra}`);
}
