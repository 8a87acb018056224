import { Client } from 'pg';
import { bearer, Replicas, startApp, startReplicas, TestApp } from './support/app';
import { approvedTool, memberKey } from './support/catalog';
import { createTestDatabase, ENGINES, TestDatabase } from './support/databases';
import { ManualClock } from './support/manual-clock';
import { TEST_PROVIDERS } from './support/test-providers';

const testkit = { providers: TEST_PROVIDERS, config: { builtins: { testkit: { enabled: true } } } };

async function toolId(t: TestApp, name: string): Promise<string> {
  const res = await t.http.get(`/v1/tools?q=${name}&type=builtin`).set(bearer(t.adminKey)).expect(200);
  return res.body.data.find((tool: { name: string }) => tool.name === name).id;
}

async function govern(t: TestApp, name: string, changes: object): Promise<string> {
  const id = await toolId(t, name);
  await t.http.put(`/v1/tools/${id}`).set(bearer(t.adminKey)).send(changes).expect(200);
  return id;
}

describe('rate limits', () => {
  let cluster: Replicas;
  let replicas: TestApp[];
  // Both replicas on one clock, ten seconds into a minute: the 200 calls all fall in one minute's window.
  const clock = new ManualClock();

  beforeAll(async () => {
    clock.set(new Date('2026-03-01T10:00:10Z'));
    cluster = await startReplicas({ ...testkit, clock });
    replicas = cluster.replicas;
  });
  afterAll(() => cluster?.close());

  it('lets exactly per_minute calls through when 200 arrive at once on two replicas', async () => {
    await govern(replicas[0], 'echo', { rate_limit: { per_minute: 50 }, audit_level: 'basic' });
    const key = await memberKey(replicas[0], 'acme');
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        replicas[i % 2].http
          .post('/v1/tool_calls')
          .set(bearer(key))
          .send({ name: 'echo', arguments: { text: `n${i}` } }),
      ),
    );
    const ok = responses.filter((res) => res.status === 200);
    const limited = responses.filter((res) => res.status === 429);
    expect(ok).toHaveLength(50);
    expect(limited).toHaveLength(150);
    expect(ok.every((res) => res.body.status === 'completed')).toBe(true);
    for (const res of limited) {
      expect(res.body.error).toEqual(expect.objectContaining({ type: 'rate_limit_error', code: 'rate_limited' }));
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    const audit = await replicas[1].http
      .get('/v1/tools/audit?tool_name=echo&limit=1000')
      .set(bearer(replicas[1].adminKey))
      .expect(200);
    const statuses = audit.body.data.map((record: { status: string }) => record.status);
    expect(statuses.filter((s: string) => s === 'success')).toHaveLength(50);
    expect(statuses.filter((s: string) => s === 'rate_limited')).toHaveLength(150);
    const metrics = (await replicas[0].http.get('/metrics')).text + (await replicas[1].http.get('/metrics')).text;
    const counted = [
      ...metrics.matchAll(/toolgate_tool_registry_denials_total\{reason="rate_limited"\} (\d+)/g),
    ].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(counted).toBe(150);
  });

  it('keeps each tenant to its own limit when their calls arrive together on two replicas', async () => {
    await govern(replicas[0], 'progress', { rate_limit: { per_minute: 20 }, audit_level: 'none' });
    const keys = [await memberKey(replicas[0], 'initech'), await memberKey(replicas[0], 'umbrella')];
    const responses = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        replicas[i % 2].http
          .post('/v1/tool_calls')
          .set(bearer(keys[Math.floor(i / 2) % 2]))
          .send({ name: 'progress', arguments: { steps: 1 } })
          .then((res) => ({ tenant: Math.floor(i / 2) % 2, status: res.status })),
      ),
    );
    for (const tenant of [0, 1]) {
      const statuses = responses.filter((res) => res.tenant === tenant).map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(20);
      expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    }
  });
});

describe('rate limit windows', () => {
  const clock = new ManualClock();
  let t: TestApp;

  beforeAll(async () => {
    clock.set(new Date('2026-03-01T10:00:10Z'));
    t = await startApp('postgres', { ...testkit, clock });
  });
  afterAll(() => t?.close());

  it('counts per tenant and rolls over with the window', async () => {
    await govern(t, 'echo', { rate_limit: { per_minute: 2, per_hour: 3 } });
    const acme = await memberKey(t, 'acme');
    const globex = await memberKey(t, 'globex');
    const call = (key: string) => t.http.post('/v1/tool_calls').set(bearer(key)).send({ name: 'echo', arguments: {} });
    await call(acme).expect(200);
    await call(acme).expect(200);
    const third = await call(acme).expect(429);
    expect(third.headers['retry-after']).toBe('50');
    expect(third.body.error.message).toContain('2 calls per minute');
    await call(globex).expect(200);
    clock.advance(60_000);
    await call(acme).expect(200);
    const hourly = await call(acme).expect(429);
    expect(hourly.body.error.message).toContain('3 calls per hour');
    expect(Number(hourly.headers['retry-after'])).toBe(3600 - 70);
    clock.advance(3_600_000);
    await call(acme).expect(200);
  });
});

describe.each(ENGINES)('refused calls on %s', (engine) => {
  const clock = new ManualClock();
  let t: TestApp;
  let acme: string;

  const audit = async (toolName: string) => {
    const res = await t.http.get(`/v1/tools/audit?tool_name=${toolName}&order=asc`).set(bearer(t.adminKey)).expect(200);
    return res.body.data as { status: string; error: string; input_args?: unknown }[];
  };

  beforeAll(async () => {
    clock.set(new Date('2026-03-01T10:00:10Z'));
    t = await startApp(engine, {
      ...testkit,
      clock,
      config: { ...testkit.config, builtins: { ...testkit.config.builtins, file_search: { enabled: false } } },
    });
    acme = await memberKey(t, 'acme');
  }, 120_000);
  afterAll(() => t?.close());

  it('spends no rate-limit slot on a call with invalid arguments', async () => {
    await govern(t, 'progress', { rate_limit: { per_minute: 2 }, audit_level: 'basic' });
    // A second apart, within one minute window, so the audit trail has a definite order.
    const call = (args: unknown) => {
      clock.advance(1000);
      return t.http.post('/v1/tool_calls').set(bearer(acme)).send({ name: 'progress', arguments: args });
    };
    await call({ steps: 'x' }).expect(400);
    await call('{"steps": ').expect(400);
    expect((await call({ steps: 1 }).expect(200)).body.status).toBe('completed');
    expect((await call({ steps: 1 }).expect(200)).body.status).toBe('completed');
    await call({ steps: 1 }).expect(429);
    expect((await audit('progress')).map((record) => record.status)).toEqual([
      'invalid',
      'invalid',
      'success',
      'success',
      'rate_limited',
    ]);
  });

  it('audits a call with invalid arguments, with what was sent and why it was refused', async () => {
    await govern(t, 'strict', { audit_level: 'full' });
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(acme))
      .send({ name: 'strict', arguments: { user: { name: '', password: 'pw-hunter2' } } })
      .expect(400);
    expect(res.body.error.code).toBe('invalid_arguments');
    const [record] = await audit('strict');
    expect(record).toEqual(
      expect.objectContaining({
        status: 'invalid',
        tenant_id: 'acme',
        input_args: { user: { name: '', password: '[REDACTED]' } },
        error: expect.stringContaining('invalid_arguments: Invalid arguments for tool'),
      }),
    );
  });

  it('audits the refusal to run a client-executed function tool', async () => {
    await approvedTool(t, 'crm-lookup', { audit_level: 'basic', rate_limit: { per_minute: 1 } });
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(acme))
      .send({ name: 'crm-lookup', arguments: { q: 'acme' } })
      .expect(400);
    expect(res.body.error.code).toBe('client_executed_tool');
    await t.http.post('/v1/tool_calls').set(bearer(acme)).send({ name: 'crm-lookup', arguments: {} }).expect(400);
    const records = await audit('crm-lookup');
    expect(records.map((record) => record.status)).toEqual(['refused', 'refused']);
    expect(records[0].error).toContain('client_executed_tool');
  });
});

describe('audit trail and usage', () => {
  const clock = new ManualClock();
  let database: TestDatabase;
  let t: TestApp;
  let echoId: string;
  /** Each test's own two tenants, `acme-<n>` and `globex-<n>`, with their member keys. */
  let tenantCount = 0;
  let acmeTenant: string;
  let globexTenant: string;
  let acme: string;
  let globex: string;

  // Each call a second later than the one before, so the audit trail has a definite order.
  const call = (key: string, name: string, args: object = {}) => {
    clock.advance(1000);
    return t.http.post('/v1/tool_calls').set(bearer(key)).send({ name, arguments: args, response_id: 'resp_audit' });
  };
  const rows = async (sql: string, params: unknown[] = []) => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    clock.set(new Date('2026-03-10T12:00:00Z'));
    database = await createTestDatabase('postgres');
    t = await startApp('postgres', { ...testkit, database, clock });
    echoId = await govern(t, 'echo', { audit_level: 'full' });
    await govern(t, 'big', { audit_level: 'full' });
    await govern(t, 'explode', { audit_level: 'full' });
  });
  beforeEach(async () => {
    // The retention test moves the clock days ahead; every test starts from the same moment.
    clock.set(new Date('2026-03-10T12:00:00Z'));
    tenantCount += 1;
    acmeTenant = `acme-${tenantCount}`;
    globexTenant = `globex-${tenantCount}`;
    acme = await memberKey(t, acmeTenant);
    globex = await memberKey(t, globexTenant);
  });
  afterAll(() => t?.close());

  it('writes a record for every status, durable before the answer', async () => {
    await call(acme, 'echo', { text: 'hello' }).expect(200);
    await call(acme, 'explode').expect(200);
    const slowId = await govern(t, 'slow', { rate_limit: { per_minute: 1 } });
    await call(acme, 'slow', { ms: 1 }).expect(200);
    await call(acme, 'slow', { ms: 1 }).expect(429);
    await t.http.post(`/v1/tools/${slowId}/review`).set(bearer(t.adminKey)).send({ decision: 'blocked' }).expect(200);
    await call(acme, 'slow', { ms: 1 }).expect(200);
    const res = await t.http
      .get(`/v1/tools/audit?tenant_id=${acmeTenant}&order=asc`)
      .set(bearer(t.adminKey))
      .expect(200);
    expect(res.body.data.map((r: { tool_name: string; status: string }) => `${r.tool_name}:${r.status}`)).toEqual([
      'echo:success',
      'explode:error',
      'slow:success',
      'slow:rate_limited',
      'slow:denied',
    ]);
    const record = res.body.data[0];
    expect(record).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^audit_/),
        object: 'tool_audit_record',
        tenant_id: acmeTenant,
        user_id: expect.stringMatching(/^key_/),
        tool_id: echoId,
        call_id: expect.stringMatching(/^call_/),
        audit_level: 'full',
        input_args: { text: 'hello' },
        response_id: 'resp_audit',
        timestamp: '2026-03-10T12:00:01.000Z',
      }),
    );
    expect(res.body.data[1].error).toBe("tool_error: Tool 'explode' failed: kaboom");
    expect(res.body.data[4].error).toContain('not_approved');
  });

  it('redacts credential-shaped text before storage', async () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const res = await call(acme, 'echo', { text: `use Bearer abc.def.ghijklmnop and ${token}` }).expect(200);
    expect(res.body.output.echo.text).toContain(token);
    const stored = await rows(`SELECT input_args::text AS input, output FROM tool_audit_records WHERE call_id = $1`, [
      res.body.call_id,
    ]);
    const text = JSON.stringify(stored);
    expect(text).not.toContain(token);
    expect(text).not.toContain('abc.def.ghijklmnop');
    expect(JSON.parse(stored[0].input)).toEqual({ text: 'use [REDACTED] and [REDACTED:github_token]' });
  });

  it('redacts values under secret-like keys', async () => {
    // The strict tool accepts `reply`: anything, echoed back as its result.
    const strictId = await govern(t, 'strict', { audit_level: 'full' });
    const args = {
      user: { name: 'ann' },
      reply: {
        ok: true,
        api_key: 'sk-live-1234567890abcdef',
        password: 'pw-hunter2',
        nested: { Authorization: 'x-y-z' },
      },
    };
    const res = await call(acme, 'strict', args).expect(200);
    expect(res.body.status).toBe('failed');
    const [stored] = await rows(
      `SELECT input_args::text AS input, output FROM tool_audit_records WHERE tool_id = $1 AND call_id = $2`,
      [strictId, res.body.call_id],
    );
    for (const value of ['sk-live-1234567890abcdef', 'pw-hunter2', 'x-y-z'])
      expect(JSON.stringify(stored)).not.toContain(value);
    expect(JSON.parse(stored.input)).toEqual({
      user: { name: 'ann' },
      reply: { ok: true, api_key: '[REDACTED]', password: '[REDACTED]', nested: { Authorization: '[REDACTED]' } },
    });
  });

  it('truncates output to 10 KB and keeps the real size', async () => {
    const res = await call(acme, 'big', { size: 50_000 }).expect(200);
    const [stored] = await rows(`SELECT output, output_size FROM tool_audit_records WHERE call_id = $1`, [
      res.body.call_id,
    ]);
    expect(stored.output_size).toBe(JSON.stringify({ data: 'x'.repeat(50_000) }).length);
    expect(Buffer.byteLength(stored.output)).toBe(10_240);
  });

  it('confines members to their own tenant and filters by tool, status and time', async () => {
    await call(acme, 'echo', { text: 'from acme' }).expect(200);
    await call(acme, 'explode').expect(200);
    await call(globex, 'echo', { text: 'from globex' }).expect(200);
    const own = await t.http.get(`/v1/tools/audit?tenant_id=${acmeTenant}`).set(bearer(globex)).expect(200);
    expect(own.body.data.map((r: { tenant_id: string }) => r.tenant_id)).toEqual([globexTenant]);
    const errors = await t.http.get('/v1/tools/audit?status=error').set(bearer(t.adminKey)).expect(200);
    expect(errors.body.data.every((r: { status: string }) => r.status === 'error')).toBe(true);
    const byTool = await t.http
      .get(`/v1/tools/audit?tool_id=${echoId}&tenant_id=${acmeTenant}`)
      .set(bearer(t.adminKey))
      .expect(200);
    expect(byTool.body.data.every((r: { tool_name: string }) => r.tool_name === 'echo')).toBe(true);
    const future = await t.http.get('/v1/tools/audit?after=2026-03-11').set(bearer(t.adminKey)).expect(200);
    expect(future.body.data).toEqual([]);
    const past = await t.http.get('/v1/tools/audit?before=2026-03-10T11:00:00Z').set(bearer(t.adminKey)).expect(200);
    expect(past.body.data).toEqual([]);
    await t.http.get('/v1/tools/audit?after=yesterday').set(bearer(t.adminKey)).expect(400);
  });

  it('pages with record ids as cursors', async () => {
    for (const text of ['one', 'two', 'three', 'four']) await call(acme, 'echo', { text }).expect(200);
    const first = await t.http.get('/v1/tools/audit?limit=3').set(bearer(t.adminKey)).expect(200);
    expect(first.body.has_more).toBe(true);
    const second = await t.http
      .get(`/v1/tools/audit?limit=100&before=${first.body.last_id}`)
      .set(bearer(t.adminKey))
      .expect(200);
    const all = await t.http.get('/v1/tools/audit?limit=1000').set(bearer(t.adminKey)).expect(200);
    expect([...first.body.data, ...second.body.data].map((r: { id: string }) => r.id)).toEqual(
      all.body.data.map((r: { id: string }) => r.id),
    );
  });

  it('exports every matching record as NDJSON', async () => {
    for (const text of ['one', 'two', 'three']) await call(acme, 'echo', { text }).expect(200);
    await call(acme, 'explode').expect(200);
    const res = await t.http
      .get(`/v1/tools/audit?tenant_id=${acmeTenant}`)
      .set(bearer(t.adminKey))
      .set('Accept', 'application/x-ndjson')
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const [{ count }] = await rows(`SELECT count(*)::int AS count FROM tool_audit_records WHERE tenant_id = $1`, [
      acmeTenant,
    ]);
    expect(lines).toHaveLength(count);
    expect(lines.every((record: { tenant_id: string }) => record.tenant_id === acmeTenant)).toBe(true);
    const times = lines.map((record: { timestamp: string }) => record.timestamp);
    expect([...times].sort()).toEqual(times);
  });

  it('computes usage for a known sequence of calls', async () => {
    const fresh = await govern(t, 'progress', { audit_level: 'basic' });
    for (let i = 0; i < 3; i++) await call(acme, 'progress', { steps: 1 }).expect(200);
    await call(globex, 'progress', { steps: 1 }).expect(200);
    await call(globex, 'progress', { steps: 'x' }).expect(400);
    const usage = await t.http.get(`/v1/tools/${fresh}/usage?period=24h`).set(bearer(t.adminKey)).expect(200);
    expect(usage.body).toEqual(
      expect.objectContaining({
        tool_id: fresh,
        period: '24h',
        total_invocations: 4,
        unique_tenants: 2,
        success_rate: 1,
        by_tenant: [
          { tenant_id: acmeTenant, invocations: 3, success_rate: 1 },
          { tenant_id: globexTenant, invocations: 1, success_rate: 1 },
        ],
        by_day: [{ date: '2026-03-10', invocations: 4 }],
      }),
    );
    expect(usage.body.p99_duration_ms).toBeGreaterThanOrEqual(usage.body.avg_duration_ms);
    const mine = await t.http.get(`/v1/tools/${fresh}/usage?period=7d`).set(bearer(globex)).expect(200);
    expect(mine.body).toEqual(
      expect.objectContaining({
        total_invocations: 1,
        unique_tenants: 1,
        by_tenant: [{ tenant_id: globexTenant, invocations: 1, success_rate: 1 }],
      }),
    );
    await call(acme, 'explode').expect(200);
    const errorRate = await t.http
      .get(`/v1/tools/${await toolId(t, 'explode')}/usage`)
      .set(bearer(t.adminKey))
      .expect(200);
    expect(errorRate.body.success_rate).toBe(0);
    await t.http.get(`/v1/tools/${fresh}/usage?period=1y`).set(bearer(t.adminKey)).expect(400);
  });

  it('strips full records after their full retention and deletes records after the basic one', async () => {
    for (const key of [acme, globex]) {
      await call(key, 'echo', { text: 'kept for a while' }).expect(200);
      await call(key, 'explode').expect(200);
    }
    await t.http
      .put(`/v1/tenants/${acmeTenant}/settings`)
      .set(bearer(t.adminKey))
      .send({ audit_retention: { full_records: '1d', basic_records: '3d' } })
      .expect(200);
    const count = async (tenant: string, where = 'true') =>
      (await rows(`SELECT count(*)::int AS n FROM tool_audit_records WHERE tenant_id = $1 AND (${where})`, [tenant]))[0]
        .n as number;
    const acmeBefore = await count(acmeTenant);
    const globexBefore = await count(globexTenant);
    expect(await count(acmeTenant, 'input_args IS NOT NULL')).toBeGreaterThan(0);
    const retention = t.toolgate.app.get((await import('../src/tools/catalog/audit/retention.job')).RetentionJob);

    clock.advance(2 * 86_400_000);
    await retention.runOnce();
    expect(await count(acmeTenant)).toBe(acmeBefore);
    expect(await count(acmeTenant, 'input_args IS NOT NULL OR output IS NOT NULL')).toBe(0);
    expect(await count(globexTenant, 'input_args IS NOT NULL')).toBeGreaterThan(0);

    clock.advance(2 * 86_400_000);
    await retention.runOnce();
    expect(await count(acmeTenant)).toBe(0);
    expect(await count(globexTenant)).toBe(globexBefore);

    clock.advance(90 * 86_400_000);
    await retention.runOnce();
    expect(await count(globexTenant)).toBe(0);
  });
});
