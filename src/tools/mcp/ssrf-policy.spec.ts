import { classifyAddress, refusalOf } from './ssrf-policy';

describe('classifyAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '::1',
    '[::]',
    '0:0:0:0:0:0:0:0',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '::10.0.0.1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::192.168.0.1',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '224.0.0.1',
    '255.255.255.255',
    'ff02::1',
    'not an address',
  ])('%s is private', (address) => {
    expect(classifyAddress(address)).toBe('private');
  });

  it.each([
    '169.254.169.254',
    'fe80::1',
    'fe80::1%eth0',
    'fd00:ec2::254',
    '100.100.100.200',
    '::ffff:169.254.169.254',
    '::169.254.169.254',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
  ])('%s is link-local (cloud metadata)', (address) => {
    expect(classifyAddress(address)).toBe('link_local');
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])(
    '%s is public',
    (address) => {
      expect(classifyAddress(address)).toBe('public');
    },
  );
});

describe('refusalOf', () => {
  const strict = { allowPrivateNetworks: false, allowLinkLocal: false };
  const defaults = { allowPrivateNetworks: true, allowLinkLocal: false };

  it('refuses private addresses only when private networks are disallowed', () => {
    expect(refusalOf('::', strict)).toBe('a private network');
    expect(refusalOf('::ffff:127.0.0.1', strict)).toBe('a private network');
    expect(refusalOf('::', defaults)).toBeUndefined();
  });

  it('refuses metadata addresses in every form unless link-local is allowed', () => {
    expect(refusalOf('::ffff:169.254.169.254', defaults)).toBe('link-local or cloud metadata');
    expect(refusalOf('169.254.169.254', { allowPrivateNetworks: true, allowLinkLocal: true })).toBeUndefined();
  });

  it('allows public addresses under any rules', () => {
    expect(refusalOf('93.184.216.34', strict)).toBeUndefined();
  });
});
