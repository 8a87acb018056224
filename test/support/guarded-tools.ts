import { bearer, TestApp } from './app';
import { review } from './catalog';
import { MutableMcpServer } from './mcp-servers';

/** A held secret the `vault-read` tool hands out: the sensitive value of chained-exfiltration tests. */
export const VAULT_SECRET = 'vault:prod/db=Zq8xW2mN7pLk4RtY9sVb';
/** A result that carries a password in a connection string. */
export const CONFIG_WITH_PASSWORD = 'config: postgres://app:s3cretPassw0rd@db.internal/app';

/**
 * An MCP server with the shapes of tools call-time guards are about: mail and HTTP that send data out
 * (network_external), a destructive tool, a secret store (secret_access) and an echo that returns its input.
 */
export async function startGuardedToolServer(): Promise<MutableMcpServer> {
  const server = await new MutableMcpServer().start();
  const text = (properties: string[]) => ({
    type: 'object' as const,
    properties: Object.fromEntries(properties.map((name) => [name, { type: 'string' }])),
  });
  server.setTool({
    definition: { name: 'send_email', description: 'Sends an email.', inputSchema: text(['to', 'subject', 'body']) },
    run: (args) => ({ text: `sent to ${String(args.to)}` }),
  });
  server.setTool({
    definition: { name: 'http_post', description: 'Posts a body to a URL.', inputSchema: text(['url', 'body']) },
    run: () => ({ text: 'posted' }),
  });
  server.setTool({
    definition: { name: 'delete_record', description: 'Deletes a record.', inputSchema: text(['id']) },
    run: (args) => ({ text: `deleted ${String(args.id)}` }),
  });
  server.setTool({
    definition: { name: 'vault_read', description: 'Reads a secret from the vault.', inputSchema: text(['name']) },
    run: () => ({ text: VAULT_SECRET }),
  });
  server.setTool({
    definition: { name: 'read_config', description: 'Reads the app configuration.', inputSchema: text([]) },
    run: () => ({ text: CONFIG_WITH_PASSWORD }),
  });
  server.setTool({
    definition: { name: 'echo', description: 'Returns its text.', inputSchema: text(['text']) },
    run: (args) => ({ text: String(args.text) }),
  });
  return server;
}

const PERMISSIONS: Record<string, string[]> = {
  'ops-send-email': ['network_external'],
  'ops-http-post': ['network_external'],
  'ops-delete-record': ['database_access'],
  'ops-vault-read': ['secret_access'],
  'ops-echo': [],
  'ops-read-config': ['filesystem_read'],
};

/** Adds the server as source `ops`, sets each tool's permissions and full audit, approves them; answers ids by name. */
export async function addGuardedTools(t: TestApp, server: MutableMcpServer): Promise<Record<string, string>> {
  await t.http.post('/v1/tools/sources/mcp').set(bearer(t.adminKey)).send({ name: 'ops', url: server.url }).expect(201);
  const ids: Record<string, string> = {};
  for (const [name, permissions] of Object.entries(PERMISSIONS)) {
    const listed = await t.http.get(`/v1/tools?q=${name}`).set(bearer(t.adminKey)).expect(200);
    const id = (listed.body.data as { id: string; name: string }[]).find((tool) => tool.name === name)!.id;
    await t.http.put(`/v1/tools/${id}`).set(bearer(t.adminKey)).send({ permissions, audit_level: 'full' }).expect(200);
    await review(t, id, 'reviewed');
    await review(t, id, 'approved');
    ids[name] = id;
  }
  return ids;
}
