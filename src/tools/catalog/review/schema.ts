import { words } from './text';

export function isString(node: Record<string, unknown>): boolean {
  return node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'));
}

/**
 * Whether a string parameter is constrained. A length limit bounds free text but does not make a path,
 * URL or command safe; only an enum, const or pattern does that (`strict`).
 */
export function isRestricted(node: Record<string, unknown>, strict = false): boolean {
  const keywords = strict ? ['pattern', 'enum', 'const'] : ['maxLength', 'pattern', 'enum', 'const', 'format'];
  return keywords.some((k) => node[k] !== undefined);
}

export interface ParameterInfo {
  name: string;
  path: string;
  description: string;
  schema: Record<string, unknown>;
}

/** Every named parameter, nested objects, arrays and combinators included. */
export function allParameters(schema: unknown, path: string): ParameterInfo[] {
  const found: ParameterInfo[] = [];
  walk(schema, path, (node, nodePath, name) => {
    if (name !== undefined)
      found.push({
        name,
        path: nodePath,
        description: [node.description, node.title].filter((t) => typeof t === 'string').join('. '),
        schema: node,
      });
  });
  return found;
}

/**
 * Every string a model may read in a schema: descriptions, titles, defaults, examples, enum and const values (the
 * strings inside object and array values too), and parameter names of three words or more, which can carry an
 * order as well as a description can ("ignore_previous_instructions").
 */
export function schemaTexts(schema: unknown, path: string): { where: string; text: string }[] {
  const texts: { where: string; text: string }[] = [];
  const names = new Set<string>();
  walk(schema, path, (node, nodePath, name) => {
    if (name !== undefined && !names.has(name)) {
      names.add(name);
      const nameWords = words(name);
      if (nameWords.length >= 3) texts.push({ where: `name of ${nodePath}`, text: nameWords.join(' ') });
    }
    for (const key of ['description', 'title']) {
      if (typeof node[key] === 'string') texts.push({ where: `${key} of ${nodePath}`, text: node[key] as string });
    }
    for (const key of ['default', 'examples', 'enum', 'const']) {
      for (const text of stringsIn(node[key])) texts.push({ where: `${key} of ${nodePath}`, text });
    }
  });
  return texts;
}

/** Strings nested in a JSON value read as data (a default object, an example), at most 100, at most 4 levels deep. */
function stringsIn(value: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (found.length >= MAX_VALUE_STRINGS) return;
    if (typeof node === 'string') found.push(node);
    else if (depth < MAX_VALUE_DEPTH && node && typeof node === 'object')
      for (const child of Object.values(node as Record<string, unknown>).slice(0, MAX_VALUE_STRINGS))
        visit(child, depth + 1);
  };
  visit(value, 0);
  return found;
}
const MAX_VALUE_STRINGS = 100;
const MAX_VALUE_DEPTH = 4;

export type Visitor = (node: Record<string, unknown>, path: string, name?: string) => void;

export function walk(schema: unknown, path: string, visit: Visitor, name?: string, depth = 0): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || depth > 32) return;
  const node = schema as Record<string, unknown>;
  visit(node, path, name);
  const properties = node.properties;
  if (properties && typeof properties === 'object') {
    for (const [key, child] of Object.entries(properties as Record<string, unknown>))
      walk(child, `${path}.${key}`, visit, key, depth + 1);
  }
  for (const key of ['items', 'additionalProperties', 'not'])
    walk(node[key], `${path}[]`, visit, key === 'items' ? name : undefined, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const options = node[key];
    if (Array.isArray(options)) options.forEach((option) => walk(option, path, visit, name, depth + 1));
  }
  for (const key of ['$defs', 'definitions']) {
    const defs = node[key];
    if (defs && typeof defs === 'object') {
      for (const [defName, child] of Object.entries(defs as Record<string, unknown>))
        walk(child, `${path}.${key}.${defName}`, visit, undefined, depth + 1);
    }
  }
}
