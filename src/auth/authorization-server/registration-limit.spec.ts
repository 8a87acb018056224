import { sourceOf } from './registration-limit';

describe('the source a registration is counted under', () => {
  it('is the IPv4 address, also when it arrives IPv4-mapped', () => {
    expect(sourceOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address, so one host cannot rotate through its own prefix', () => {
    expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8:1:3::1')).not.toBe(sourceOf('2001:db8:1:2::1'));
  });

  it('is one shared bucket when the address is missing or not an address', () => {
    expect(sourceOf(undefined)).toBe('unknown');
    expect(sourceOf('not-an-ip')).toBe('unknown');
  });
});
