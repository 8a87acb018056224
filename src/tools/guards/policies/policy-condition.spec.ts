import { compileCondition, PolicyConditionError } from './policy-condition';

const activation = (args: unknown, extra: Record<string, unknown> = {}) => ({
  tool: { name: 'mail-send-email', upstream_name: 'send_email', permissions: ['network_external'], tags: [] },
  arguments: args,
  identity: { tenant: 'acme', role: 'member', profile: '' },
  request: { calls_last_minute: 1 },
  ...extra,
});

describe('policy conditions', () => {
  it('evaluates conditions over the tool, arguments and identity', () => {
    const outside = compileCondition('!arguments.to.endsWith("@acme.com")');
    expect(outside(activation({ to: 'bob@evil.test' }))).toBe(true);
    expect(outside(activation({ to: 'bob@acme.com' }))).toBe(false);
    const hosts = compileCondition(
      '"network_external" in tool.permissions && hosts(arguments).exists(h, !(h in ["api.acme.com"]))',
    );
    expect(hosts(activation({ url: 'https://api.acme.com/x', body: 'see http://evil.test:8080/a' }))).toBe(true);
    expect(hosts(activation({ url: 'https://API.acme.com/x' }))).toBe(false);
  });

  it('names the position of a syntax error', () => {
    expect(() => compileCondition('tool.name == "x" && (')).toThrow(PolicyConditionError);
    const error = thrownBy(() => compileCondition('tool.name ==== 3'));
    expect(error).toBeInstanceOf(PolicyConditionError);
    expect((error as PolicyConditionError).position).toBe(12);
    expect((error as Error).message).toContain('position 12');
  });

  it('refuses unknown functions, non-boolean conditions and regular expressions', () => {
    expect(() => compileCondition('nosuch(arguments)')).toThrow(PolicyConditionError);
    expect(() => compileCondition('"a" + "b"')).toThrow(/boolean/);
    expect(() => compileCondition('arguments.to.matches("(a+)+$")')).toThrow(/matches\(\) is not allowed/);
  });

  it('refuses a condition whose cost could run away (nested comprehensions)', () => {
    expect(() => compileCondition('arguments.items.all(x, arguments.items.exists(y, x == y))')).toThrow(
      /worst-case cost .* exceeds/,
    );
    expect(compileCondition('arguments.items.exists(x, x == "a")')(activation({ items: ['b', 'a'] }))).toBe(true);
  });
});

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
