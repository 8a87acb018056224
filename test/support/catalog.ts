import { bearer, TestApp } from './app';

/** A tool as registered in tests: an MCP-sourced entry with a tight schema. */
export function toolBody(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: `The ${name} tool.`,
    source: { type: 'function' },
    schema: { type: 'object', properties: { q: { type: 'string', maxLength: 50 } }, additionalProperties: false },
    tags: ['test'],
    ...extra,
  };
}

/** Registers a tool as admin and walks it through review to approved. */
export async function approvedTool(t: TestApp, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await t.http.post('/v1/tools').set(bearer(t.adminKey)).send(toolBody(name, extra)).expect(201);
  await review(t, created.body.id, 'reviewed');
  await review(t, created.body.id, 'approved');
  return created.body.id as string;
}

export async function review(t: TestApp, id: string, decision: string, expected = 200) {
  return t.http
    .post(`/v1/tools/${id}/review`)
    .set(bearer(t.adminKey))
    .send({ decision, notes: `${decision} in a test` })
    .expect(expected);
}

export async function memberKey(t: TestApp, tenantId: string): Promise<string> {
  const res = await t.http
    .post('/v1/admin/api_keys')
    .set(bearer(t.adminKey))
    .send({ name: `${tenantId} agent`, tenant_id: tenantId })
    .expect(201);
  return res.body.secret as string;
}

/** Names of the caller's effective tools, through the public definitions route. */
export async function effectiveNames(t: TestApp, key: string, profile?: string, tools?: string): Promise<string[]> {
  const request = t.http.get(`/v1/tool_definitions${tools ? `?tools=${tools}` : ''}`).set(bearer(key));
  if (profile) request.set('X-Agent-Profile', profile);
  const res = await request.expect(200);
  return (res.body.data as { name: string }[]).map((tool) => tool.name).sort();
}

/** Creates a bundle of `tools` as admin and assigns it to a tenant, or to one agent profile of a tenant. */
export async function assignedBundle(
  t: TestApp,
  name: string,
  tools: string[],
  assignment: { tenant_id: string; agent_profile?: string },
): Promise<string> {
  const bundle = await t.http.post('/v1/tools/bundles').set(bearer(t.adminKey)).send({ name, tools }).expect(201);
  await t.http.post(`/v1/tools/bundles/${bundle.body.id}/assign`).set(bearer(t.adminKey)).send(assignment).expect(200);
  return bundle.body.id as string;
}
