import { ApiError } from '../../../common/api-error';
import { AUTO_CHUNKING, CHUNK_SIZE_MAX, CHUNK_SIZE_MIN } from './file-search.config';
import type { Attributes } from './vector-store-files/vector-store-file.entity';

/** OpenAI's limits for `metadata` and `attributes`: 16 keys of at most 64 characters, strings of at most 512. */
const MAX_KEYS = 16;
const MAX_KEY_LENGTH = 64;
const MAX_STRING_LENGTH = 512;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, param: string): void {
  const keys = Object.keys(value);
  if (keys.length > MAX_KEYS) throw ApiError.invalid(`${param} can have at most ${MAX_KEYS} keys`, param);
  const long = keys.find((key) => key.length > MAX_KEY_LENGTH || key.length === 0);
  if (long !== undefined) {
    throw ApiError.invalid(`${param} keys must be 1 to ${MAX_KEY_LENGTH} characters; '${long}' is not`, param);
  }
}

/** `metadata`: string values only. Null and undefined mean none. */
export function parseMetadata(value: unknown, param = 'metadata'): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (value === null) return {};
  if (!isPlainObject(value)) throw ApiError.invalid(`${param} must be an object of strings`, param);
  checkKeys(value, param);
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw ApiError.invalid(`${param}.${key} must be a string`, `${param}.${key}`);
    if (item.length > MAX_STRING_LENGTH) {
      throw ApiError.invalid(`${param}.${key} must be at most ${MAX_STRING_LENGTH} characters`, `${param}.${key}`);
    }
  }
  return value as Record<string, string>;
}

/** `attributes` of a vector store file: strings, numbers and booleans. Null means none. */
export function parseAttributes(value: unknown, param = 'attributes'): Attributes | null | undefined {
  if (value === undefined || value === null) return value;
  if (!isPlainObject(value)) throw ApiError.invalid(`${param} must be an object`, param);
  checkKeys(value, param);
  for (const [key, item] of Object.entries(value)) {
    const where = `${param}.${key}`;
    if (typeof item === 'string') {
      if (item.length > MAX_STRING_LENGTH) {
        throw ApiError.invalid(`${where} must be at most ${MAX_STRING_LENGTH} characters`, where);
      }
    } else if (typeof item === 'number') {
      if (!Number.isFinite(item)) throw ApiError.invalid(`${where} must be a finite number`, where);
    } else if (typeof item !== 'boolean') {
      throw ApiError.invalid(`${where} must be a string, a number or a boolean`, where);
    }
  }
  return value as Attributes;
}

export interface Chunking {
  size: number;
  overlap: number;
}

/**
 * `chunking_strategy`: `{type: 'auto'}` (800/400) or `{type: 'static', static: {max_chunk_size_tokens,
 * chunk_overlap_tokens}}` with OpenAI's bounds. Undefined means the configured default.
 */
export function parseChunkingStrategy(value: unknown, fallback: Chunking, param = 'chunking_strategy'): Chunking {
  if (value === undefined || value === null) return fallback;
  if (!isPlainObject(value)) throw ApiError.invalid(`${param} must be an object`, param);
  if (value.type === 'auto') {
    if (Object.keys(value).some((key) => key !== 'type')) {
      throw ApiError.invalid(`${param} of type auto takes no other fields`, param);
    }
    return { ...AUTO_CHUNKING };
  }
  if (value.type !== 'static') throw ApiError.invalid(`${param}.type must be 'auto' or 'static'`, `${param}.type`);
  const settings = value.static;
  if (!isPlainObject(settings))
    throw ApiError.invalid(`${param}.static is required for type static`, `${param}.static`);
  const size = settings.max_chunk_size_tokens;
  const overlap = settings.chunk_overlap_tokens;
  const sizeParam = `${param}.static.max_chunk_size_tokens`;
  const overlapParam = `${param}.static.chunk_overlap_tokens`;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < CHUNK_SIZE_MIN || size > CHUNK_SIZE_MAX) {
    throw ApiError.invalid(
      `max_chunk_size_tokens must be an integer from ${CHUNK_SIZE_MIN} to ${CHUNK_SIZE_MAX}`,
      sizeParam,
    );
  }
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0) {
    throw ApiError.invalid('chunk_overlap_tokens must be a non-negative integer', overlapParam);
  }
  if (overlap * 2 > size) {
    throw ApiError.invalid('chunk_overlap_tokens must not exceed half of max_chunk_size_tokens', overlapParam);
  }
  return { size, overlap };
}

/** `expires_after: {anchor: 'last_active_at', days: 1..365}`; null removes the expiry. */
export function parseExpiresAfter(value: unknown, param = 'expires_after'): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (!isPlainObject(value)) throw ApiError.invalid(`${param} must be an object`, param);
  if (value.anchor !== 'last_active_at') {
    throw ApiError.invalid(`${param}.anchor must be 'last_active_at'`, `${param}.anchor`);
  }
  const days = value.days;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 365) {
    throw ApiError.invalid(`${param}.days must be an integer from 1 to 365`, `${param}.days`);
  }
  return days;
}
