import { REDACTED, Redactor } from './redaction';

describe('Redactor', () => {
  const redactor = new Redactor();

  it('redacts secret-like keys at any depth, in objects and arrays', () => {
    let value: unknown = { password: 'hunter2', keep: 'visible' };
    for (let level = 0; level < 5_000; level++) value = level % 2 ? { a: value } : [value];
    let copy = redactor.redact(value) as { a?: unknown; password?: unknown; keep?: unknown } | unknown[];
    while (Array.isArray(copy) || copy.a !== undefined) copy = (Array.isArray(copy) ? copy[0] : copy.a) as typeof copy;
    expect(copy).toEqual({ password: REDACTED, keep: 'visible' });
  });

  it('keeps key order, shared values and __proto__ as an ordinary key', () => {
    const shared = { token: 't', n: 1 };
    const source = JSON.parse('{"z":1,"__proto__":{"secret":"s"},"a":2}') as Record<string, unknown>;
    const copy = redactor.redact({ ...source, one: shared, two: shared }) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['z', '__proto__', 'a', 'one', 'two']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe(
      '{"z":1,"__proto__":{"secret":"[REDACTED]"},"a":2,"one":{"token":"[REDACTED]","n":1},"two":{"token":"[REDACTED]","n":1}}',
    );
  });

  it('redacts assignments inside free text', () => {
    expect(redactor.redactText('login with password=hunter2 please')).toBe(`login with password=${REDACTED} please`);
    expect(redactor.redactText('secret: abc123, then')).toBe(`secret: ${REDACTED}, then`);
    expect(redactor.redactText('GET /cb?access_token=xyz&page=2')).toBe(`GET /cb?access_token=${REDACTED}&page=2`);
    expect(redactor.redactText('{"api_key": "k-1"}')).toBe(`{"api_key": "${REDACTED}"}`);
    expect(redactor.redactText('max_tokens: 100 and tokens=5')).toBe('max_tokens: 100 and tokens=5');
  });

  it('redacts URL credentials, JWTs and private keys', () => {
    expect(redactor.redactText('see https://ann:pw@example.com/x')).toBe(`see ${REDACTED}example.com/x`);
    expect(redactor.redactText('jwt eyJhbGciOi.eyJzdWIiOi.c2ln end')).toBe(`jwt ${REDACTED} end`);
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----';
    expect(redactor.redactText(`a ${pem} b ${pem} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
    expect(redactor.redactText('-----BEGIN PRIVATE KEY----- never ends')).toBe(
      '-----BEGIN PRIVATE KEY----- never ends',
    );
  });

  it('reads secrets hidden by JSON escapes, percent-encoding, HTML entities and lookalike letters', () => {
    const cases: [string, string][] = [
      ['{\\"password\\":\\"hunter2\\"}', `{"password":"${REDACTED}"}`],
      ['pass%77ord=hunter2&page=2', `password=${REDACTED}&page=2`],
      ['password&#61;hunter2', `password=${REDACTED}`],
      ['&quot;token&quot;: &quot;abc&quot;', `"token": "${REDACTED}"`],
      ['ｐａｓｓｗｏｒｄ=hunter2', `password=${REDACTED}`],
      ['p\u200Bassword=hunter2', `password=${REDACTED}`],
      ['\u0440\u0430ssword=hunter2', `password=${REDACTED}`],
    ];
    for (const [text, stored] of cases) expect(redactor.redactText(text)).toBe(stored);
    // Nothing hidden: the text is stored as it came, encodings and all.
    expect(redactor.redactText('100%25 juice &amp; caf\u00e9')).toBe('100%25 juice &amp; caf\u00e9');
  });

  it('redacts pwd=, quoted pairs, bearer, sessionid and pin, but not words that merely end in a short name', () => {
    expect(redactor.redactText('pwd=hunter2')).toBe(`pwd=${REDACTED}`);
    expect(redactor.redactText('["password", "hunter2"]')).toBe(`["password", "${REDACTED}"]`);
    expect(redactor.redactText('bearer: abc sessionid=def pin=1234')).toBe(
      `bearer: ${REDACTED} sessionid=${REDACTED} pin=${REDACTED}`,
    );
    expect(redactor.redactText('spin=3, opinion: fine')).toBe('spin=3, opinion: fine');
    expect(redactor.redact({ bearer: 'a', sessionId: 'b', pin: '1234', cvv: '123', pаssword: 'c' })).toEqual({
      bearer: REDACTED,
      sessionId: REDACTED,
      pin: REDACTED,
      cvv: REDACTED,
      pаssword: REDACTED,
    });
  });

  it('redacts the value after a secret name in an array', () => {
    expect(redactor.redact({ pairs: ['user', 'ann', 'password', 'hunter2', 'pin', 1234] })).toEqual({
      pairs: ['user', 'ann', 'password', REDACTED, 'pin', REDACTED],
    });
  });
});
