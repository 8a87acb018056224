import type { McpToolIcon } from '../tool-executor';

const MAX_ICONS = 8;
const MAX_SRC_CHARS = 4096;
const MAX_SIZES = 8;
const MAX_SHORT_CHARS = 64;

/**
 * The icons of a discovered tool that are safe to hand to clients: an upstream server is untrusted, and
 * clients fetch or render what we pass on. Only https URLs and inline images are kept, lists and strings
 * are bounded, unknown fields are dropped, and a malformed entry is left out rather than failing discovery.
 */
export function toolIcons(raw: unknown): McpToolIcon[] | null {
  if (!Array.isArray(raw)) return null;
  const icons = raw.slice(0, MAX_ICONS).flatMap((entry) => {
    const icon = iconOf(entry);
    return icon ? [icon] : [];
  });
  return icons.length > 0 ? icons : null;
}

function iconOf(entry: unknown): McpToolIcon | undefined {
  if (entry === null || typeof entry !== 'object') return undefined;
  const { src, mimeType, sizes, theme } = entry as Record<string, unknown>;
  if (typeof src !== 'string' || src.length > MAX_SRC_CHARS || !isSafeSource(src)) return undefined;
  const icon: McpToolIcon = { src };
  if (isShortString(mimeType)) icon.mimeType = mimeType;
  if (Array.isArray(sizes)) {
    const kept = sizes.slice(0, MAX_SIZES).filter(isShortString);
    if (kept.length > 0) icon.sizes = kept;
  }
  if (theme === 'light' || theme === 'dark') icon.theme = theme;
  return icon;
}

function isSafeSource(src: string): boolean {
  if (src.startsWith('data:image/')) return true;
  try {
    return new URL(src).protocol === 'https:';
  } catch {
    return false;
  }
}

function isShortString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SHORT_CHARS;
}
