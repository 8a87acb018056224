import { findTooDeep, storableJson } from './json-depth';

describe('findTooDeep', () => {
  const deep = (levels: number) => JSON.parse('[{"k":'.repeat(levels) + '1' + '}]'.repeat(levels)) as unknown;

  it('accepts values within the limit, scalars included', () => {
    expect(findTooDeep({ a: [1, { b: 'x' }] }, 3)).toBeUndefined();
    expect(findTooDeep('text', 1)).toBeUndefined();
    expect(findTooDeep(null, 1)).toBeUndefined();
  });

  it('names the first too-deep value, however deep the input goes', () => {
    expect(findTooDeep({ a: [1, { b: 'x' }] }, 2)).toBe('a[1]');
    expect(findTooDeep(deep(10_000), 4, 'body')).toBe('body[0].k[0].k');
  });

  it('quotes keys that are not plain names', () => {
    expect(findTooDeep({ 'a b': { 'c.d': {} } }, 2, 'x')).toBe('x["a b"]["c.d"]');
  });
});

describe('storableJson', () => {
  it('returns the value itself when every string can be stored', () => {
    const value = { a: ['x', { b: 'é😀' }], n: 1 };
    expect(storableJson(value)).toBe(value);
  });

  it('replaces NUL and unpaired surrogates in keys and strings at any depth, keeping pairs', () => {
    const value = { 'k\u0000': [{ t: 'a\u0000b\ud800c' }, '😀\udc00'], ok: true };
    expect(storableJson(value)).toEqual({ 'k\uFFFD': [{ t: 'a\uFFFDb\uFFFDc' }, '😀\uFFFD'], ok: true });
  });
});
