import { TtlCache } from './ttl-cache';

it('forgets entries after the ttl', () => {
  let now = 1_000;
  const cache = new TtlCache<string, string>(60_000, 10, () => now);
  cache.set('q', 'answer');
  now += 59_999;
  expect(cache.get('q')).toBe('answer');
  now += 1;
  expect(cache.get('q')).toBeUndefined();
  expect(cache.size).toBe(0);
});

it('holds at most maxEntries, dropping the least recently used', () => {
  const cache = new TtlCache<string, number>(60_000, 3);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  expect(cache.get('a')).toBe(1); // a is now the most recently used
  cache.set('d', 4);
  expect(cache.size).toBe(3);
  expect(cache.get('b')).toBeUndefined();
  expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
});

it('stores nothing with a ttl of 0', () => {
  const cache = new TtlCache<string, number>(0, 3);
  cache.set('a', 1);
  expect(cache.enabled).toBe(false);
  expect(cache.get('a')).toBeUndefined();
});

it('keeps entries without a ttl until they are pushed out or cleared', () => {
  let now = 0;
  const cache = new TtlCache<string, number>(Infinity, 2, () => now);
  cache.set('a', 1);
  now += 365 * 86_400_000;
  expect(cache.get('a')).toBe(1);
  cache.clear();
  expect(cache.get('a')).toBeUndefined();
});
