import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, effectiveNames, memberKey, assignedBundle } from './support/catalog';
import { TEST_PROVIDERS } from './support/test-providers';

/**
 * A three-tenant deployment: acme sees every approved tool; globex is denylisted from some;
 * initech has only a bundle; within acme, a "support" profile sees only its bundle; a request's own
 * tool list narrows further.
 */
describe('effective tool sets: the three-tenant example', () => {
  let t: TestApp;
  const keys: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const builtins = ['big', 'echo', 'explode', 'hang', 'progress', 'slow', 'strict'];
  const all = ['aws-ec2', 'aws-s3', 'github-issues', 'jira-search', 'slack-post', ...builtins].sort();

  const call = (tenant: string, name: string, profile?: string) => {
    const request = t.http.post('/v1/tool_calls').set(bearer(keys[tenant])).send({ name, arguments: {} });
    return profile ? request.set('X-Agent-Profile', profile) : request;
  };

  beforeAll(async () => {
    t = await startApp('postgres', {
      providers: TEST_PROVIDERS,
      config: { builtins: { testkit: { enabled: true }, file_search: { enabled: false } } },
    });
    for (const tenant of ['acme', 'globex', 'initech']) keys[tenant] = await memberKey(t, tenant);
    for (const name of ['github-issues', 'slack-post', 'jira-search']) ids[name] = await approvedTool(t, name);
    for (const name of ['aws-s3', 'aws-ec2'])
      ids[name] = await approvedTool(t, name, { tenant_access: { mode: 'denylist', denylist: ['globex'] } });
    const unapproved = await t.http
      .post('/v1/tools')
      .set(bearer(t.adminKey))
      .send({
        name: 'draft-tool',
        description: 'Not reviewed yet.',
        source: { type: 'function' },
        schema: { type: 'object' },
      })
      .expect(201);
    ids['draft-tool'] = unapproved.body.id;

    await assignedBundle(t, 'Productivity', [ids['slack-post'], ids['jira-search']], { tenant_id: 'initech' });
    await assignedBundle(t, 'Support', [ids['jira-search'], ids['slack-post']], {
      tenant_id: 'acme',
      agent_profile: 'support',
    });
  });
  afterAll(() => t?.close());

  it('acme sees every approved tool, and nothing unapproved', async () => {
    expect(await effectiveNames(t, keys.acme)).toEqual(all);
  });

  it('globex is kept from the denylisted tools', async () => {
    expect(await effectiveNames(t, keys.globex)).toEqual(all.filter((name) => !name.startsWith('aws-')));
  });

  it('initech has only its bundle', async () => {
    expect(await effectiveNames(t, keys.initech)).toEqual(['jira-search', 'slack-post']);
  });

  it("acme's support profile sees only its bundle", async () => {
    expect(await effectiveNames(t, keys.acme, 'support')).toEqual(['jira-search', 'slack-post']);
  });

  it("a request's own tool list narrows further", async () => {
    expect(await effectiveNames(t, keys.acme, 'support', 'jira-search,github-issues')).toEqual(['jira-search']);
    expect(await effectiveNames(t, keys.globex, undefined, 'aws-s3,echo')).toEqual(['echo']);
  });

  it('admits calls inside the effective set', async () => {
    expect((await call('acme', 'echo').expect(200)).body.status).toBe('completed');
    expect((await call('globex', 'echo').expect(200)).body.status).toBe('completed');
  });

  it('denies every call outside it, naming the reason where the caller may know the tool', async () => {
    const denied = async (tenant: string, name: string, code: string, profile?: string) => {
      const res = await call(tenant, name, profile).expect(200);
      expect(res.body).toEqual(expect.objectContaining({ status: 'denied', output: null }));
      expect(res.body.error.code).toBe(code);
      return res.body.error.message as string;
    };
    // Built-in names are public: a refusal says why.
    expect(await denied('initech', 'echo', 'not_in_tenant_bundles')).toContain(
      "not in the bundles assigned to tenant 'initech'",
    );
    expect(await denied('acme', 'echo', 'not_in_agent_profile', 'support')).toContain("agent profile 'support'");
    // A registered tool the caller cannot list answers as an unknown name; the audit says why.
    for (const [tenant, name] of [
      ['globex', 'aws-s3'],
      ['acme', 'draft-tool'],
    ]) {
      const res = await call(tenant, name).expect(400);
      expect(res.body.error).toEqual(expect.objectContaining({ code: 'unknown_tool', param: 'name' }));
      expect(res.body.error.message).toMatch(new RegExp(`^Unknown tool '${name}'`));
    }
    const audit = async (tenant: string, name: string) =>
      (await t.http.get(`/v1/tools/audit?tenant_id=${tenant}&tool_name=${name}`).set(bearer(t.adminKey)).expect(200))
        .body.data[0];
    expect(await audit('globex', 'aws-s3')).toEqual(
      expect.objectContaining({
        status: 'denied',
        error: "tenant_denied: Tool 'aws-s3' is not available to tenant 'globex'",
      }),
    );
    expect((await audit('acme', 'draft-tool')).error).toContain('not_approved');
    const metrics = (await t.http.get('/metrics')).text;
    for (const reason of ['tenant_denied', 'not_in_tenant_bundles', 'not_in_agent_profile', 'not_approved']) {
      expect(metrics).toContain(`toolgate_tool_registry_denials_total{reason="${reason}"}`);
    }
  });

  it('refuses to run a client-executed function tool, saying so', async () => {
    const res = await call('acme', 'github-issues').expect(400);
    expect(res.body.error.code).toBe('client_executed_tool');
    expect(res.body.error.message).toContain('the client executes it');
  });

  it('lists for a member its effective tools plus what its tenant registered', async () => {
    await t.http
      .post('/v1/tools')
      .set(bearer(keys.initech))
      .send({
        name: 'initech-own',
        description: 'Registered by initech.',
        source: { type: 'function' },
        schema: { type: 'object' },
      })
      .expect(201);
    const res = await t.http.get('/v1/tools?limit=100').set(bearer(keys.initech)).expect(200);
    const names = (res.body.data as { name: string; security_status: string }[]).map((tool) => tool.name).sort();
    expect(names).toEqual(['initech-own', 'jira-search', 'slack-post']);
    await t.http.get(`/v1/tools/${ids['aws-s3']}`).set(bearer(keys.initech)).expect(404);
    await t.http.get(`/v1/tools/${ids['jira-search']}`).set(bearer(keys.initech)).expect(200);
    const forAdmin = await t.http.get('/v1/tools?limit=100').set(bearer(t.adminKey)).expect(200);
    expect(forAdmin.body.data.length).toBe(all.length + 2);
  });

  it('keeps other tenants out of tenant access lists shown to members', async () => {
    const res = await t.http.get(`/v1/tools/${ids['aws-s3']}`).set(bearer(keys.acme)).expect(200);
    expect(res.body.tenant_access).toEqual({ mode: 'denylist' });
    const admin = await t.http.get(`/v1/tools/${ids['aws-s3']}`).set(bearer(t.adminKey)).expect(200);
    expect(admin.body.tenant_access).toEqual({ mode: 'denylist', denylist: ['globex'] });
  });
});
