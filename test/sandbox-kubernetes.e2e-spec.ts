import OpenAI, { toFile } from 'openai';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';
import { approvedTool, memberKey } from './support/catalog';
import { FakeKubernetes } from './support/fake-kubernetes';
import { sandboxTemplateDir } from './support/sandbox-templates';
import { freePort, startSandboxPod } from './support/sandbox-server';
import { waitFor } from './support/wait';

const NAMESPACE = 'toolgate-sandboxes';
const TOKEN = 'fake-service-account-token';
const SERVICE_SECRET = 'service-env-secret-that-no-sandbox-may-see';

/** Sandbox tools on `sandbox.runtime: kubernetes`, against a fake API server and controller (no real cluster). */
describe('sandbox tools on Kubernetes agent-sandbox', () => {
  const templates = sandboxTemplateDir();
  const script = (name: string) => `/usr/bin/python3 ${templates}/${name}`;
  const sandboxTool = (entrypoint: string, extra: Record<string, unknown> = {}) => ({
    source: { type: 'sandbox', template: 'python', entrypoint, ...extra },
    schema: { type: 'object' },
  });
  const kubernetesConfig = (kube: FakeKubernetes, port: number) => ({
    builtins: { file_search: { enabled: true }, code_interpreter: { enabled: true } },
    sandbox: {
      runtime: 'kubernetes' as const,
      limits: { wall_time: '3s', max_output_bytes: 65_536 },
      kubernetes: {
        kubeconfig: kube.kubeconfig(),
        port,
        ready_timeout: '1s',
        templates: { python: { sandbox_template: 'python-runtime' } },
        default_template: 'python',
      },
    },
  });

  afterAll(() => rmSync(templates, { recursive: true, force: true }));

  describe('with access granted', () => {
    let t: TestApp;
    let kube: FakeKubernetes;
    let upstream: FakeChatServer;
    const call = (name: string, args: unknown = {}, key = t.adminKey) =>
      t.http.post('/v1/tool_calls').set(bearer(key)).send({ name, arguments: args });

    beforeAll(async () => {
      process.env.TOOLGATE_TEST_SERVICE_SECRET = SERVICE_SECRET;
      const port = await freePort();
      kube = new FakeKubernetes({
        namespace: NAMESPACE,
        token: TOKEN,
        warmPools: { 'python-pool': 'python-runtime' },
        startPod: (ip) => startSandboxPod(ip, port),
      });
      await kube.start();
      upstream = await FakeChatServer.start();
      t = await startApp('postgres', {
        config: { ...kubernetesConfig(kube, port), engine: { upstream: { url: upstream.url } } },
      });
      await approvedTool(t, 'kb-echo', sandboxTool(script('echo.py')));
      await approvedTool(t, 'kb-fail', sandboxTool(script('fail.py')));
      await approvedTool(t, 'kb-sleep', sandboxTool(script('sleep.py')));
      await approvedTool(t, 'kb-flood', sandboxTool('/usr/bin/head -c 1073741824 /dev/zero'));
      await approvedTool(t, 'kb-cred', sandboxTool(script('echo.py'), { credential_key: 'github.token' }));
    });

    afterEach(() => {
      kube.behaviour = { ready: 'after', ms: 20 };
      kube.podIPsOnClaim = true;
    });

    afterAll(async () => {
      delete process.env.TOOLGATE_TEST_SERVICE_SECRET;
      await t?.close();
      await kube?.close();
      await upstream?.close();
    });

    it('claims a sandbox of the template warm pool, runs the entrypoint with the arguments on stdin, and releases the claim', async () => {
      const before = Date.now();
      const res = await call('kb-echo', { city: 'Lyon', days: [1, 2] }).expect(200);
      expect(res.body.status).toBe('completed');
      expect(res.body.output.args).toEqual({ city: 'Lyon', days: [1, 2] });

      const claim = kube.created.at(-1)!;
      expect(claim).toMatchObject({
        apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
        kind: 'SandboxClaim',
        metadata: { namespace: NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'toolgate' } },
        spec: { warmPoolRef: { name: 'python-pool' }, lifecycle: { shutdownPolicy: 'Delete' } },
      });
      // The controller reaps a claim left behind after the run's wall time (3s) and a margin, not before.
      const shutdownTime = (claim.spec!.lifecycle as { shutdownTime: string }).shutdownTime;
      expect(shutdownTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(shutdownTime)).toBeGreaterThan(before + 3000);
      expect(kube.deleted).toContain(claim.metadata.name);
      expect(kube.claims.size).toBe(0);
      expect(kube.pods.size).toBe(0);
    });

    it('answers plain stdout as text through code_interpreter, on the default template', async () => {
      const res = await call('code_interpreter', { code: 'print(6 * 7)' }).expect(200);
      expect(res.body.output).toEqual({ outputs: [{ type: 'logs', logs: '42\n' }], files: [] });
      expect(kube.created.at(-1)!.spec).toMatchObject({ warmPoolRef: { name: 'python-pool' } });
      expect(kube.claims.size).toBe(0);
    });

    it('fails the call with the last stderr line when the entrypoint exits non-zero, and releases the claim', async () => {
      const res = await call('kb-fail').expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.message).toBe(
        "Tool 'kb-fail' exited with code 1: ValueError: the input was not what this tool expects",
      );
      expect(kube.deleted).toContain(kube.created.at(-1)!.metadata.name);
      expect(kube.claims.size).toBe(0);
    });

    it('stops a run over its wall time and releases the claim', async () => {
      const res = await call('kb-sleep').expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.code).toBe('sandbox_timeout');
      expect(kube.deleted).toContain(kube.created.at(-1)!.metadata.name);
      expect(kube.claims.size).toBe(0);
    });

    it('stops a run writing more than max_output_bytes and releases the claim', async () => {
      const res = await call('kb-flood').expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.code).toBe('sandbox_output_too_large');
      expect(kube.deleted).toContain(kube.created.at(-1)!.metadata.name);
      expect(kube.claims.size).toBe(0);
    });

    it('releases the claim of a call cancelled by its timeout while the entrypoint runs', async () => {
      const res = await t.http
        .post('/v1/tool_calls')
        .set(bearer(t.adminKey))
        .send({ name: 'kb-sleep', arguments: {}, timeout_ms: 500 })
        .expect(200);
      expect(res.body.error.code).toBe('timeout');
      const claim = kube.created.at(-1)!.metadata.name;
      // The answer does not wait for the cancelled run: its claim is deleted right after.
      await waitFor(() => kube.deleted.includes(claim), 5000, `the deletion of ${claim}`);
      expect(kube.claims.size).toBe(0);
    });

    it('fails a call whose claim never becomes Ready within ready_timeout, and deletes that claim', async () => {
      kube.behaviour = { ready: 'never' };
      const res = await call('kb-echo').expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.message).toBe(
        "Tool 'kb-echo' failed: no sandbox of warm pool 'python-pool' became ready within 1000 ms (sandbox.kubernetes.ready_timeout); its claim was released",
      );
      expect(kube.deleted).toContain(kube.created.at(-1)!.metadata.name);
      expect(kube.claims.size).toBe(0);
    });

    it('fails at once on a terminal Ready=False reason, naming it', async () => {
      kube.behaviour = {
        ready: 'failed',
        reason: 'InvalidConfiguration',
        message: 'template python-runtime has no image',
      };
      const res = await call('kb-echo').expect(200);
      expect(res.body.status).toBe('failed');
      expect(res.body.error.message).toContain('InvalidConfiguration (template python-runtime has no image)');
      expect(kube.claims.size).toBe(0);
    });

    it('reads the pod IP from the Sandbox when the claim carries only its name', async () => {
      kube.podIPsOnClaim = false;
      const res = await call('kb-echo', { n: 1 }).expect(200);
      expect(res.body.output.args).toEqual({ n: 1 });
      expect(kube.claims.size).toBe(0);
    });

    it('keeps one claim for the code_interpreter calls of a /v1/responses run, with its files, and releases it at the end', async () => {
      const key = await memberKey(t, 'files-tenant');
      const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
      const csv = await client.files.create({
        file: await toFile(Buffer.from('item,amount\napples,3\npears,4\n'), 'sales.csv'),
        purpose: 'assistants',
      });
      const first = [
        'import csv',
        'total = sum(int(row["amount"]) for row in csv.DictReader(open("/mnt/data/sales.csv")))',
        'open("/mnt/data/total.txt", "w").write(f"total={total}")',
        'print(total)',
      ].join('\n');
      // The second call reads what the first wrote: the same sandbox.
      const second = 'print(open("/mnt/data/total.txt").read())';
      upstream.reset();
      upstream.script(
        ...[first, second].map((code) => ({
          toolCalls: [{ name: 'code_interpreter', arguments: JSON.stringify({ code }) }],
        })),
        { text: 'The total is in total.txt.' },
      );
      const claimsBefore = kube.created.length;

      const response = await client.responses.create({
        model: 'any',
        input: 'Sum the amounts',
        tools: [{ type: 'code_interpreter', container: { type: 'auto', file_ids: [csv.id] } }],
      });

      expect(response.status).toBe('completed');
      expect(response.output[0]).toMatchObject({ outputs: [{ type: 'logs', logs: '7\n' }] });
      expect(response.output[1]).toMatchObject({ outputs: [{ type: 'logs', logs: 'total=7\n' }] });
      // One claim for the response; its shutdownTime moved on before the second run; deleted at the end.
      expect(kube.created.length).toBe(claimsBefore + 1);
      const claim = kube.created.at(-1)!.metadata.name;
      const moved = kube.patches.filter((patch) => patch.name === claim);
      expect(moved).toHaveLength(1);
      expect(moved[0].patch).toEqual({ spec: { lifecycle: { shutdownTime: expect.stringMatching(/Z$/) } } });
      expect(kube.deleted).toContain(claim);
      expect(kube.pods.size).toBe(0);

      // The file the code wrote came back as the caller's file.
      const text = JSON.stringify(response.output);
      const fileId = /"file_id":"(file-[^"]+)"/.exec(text)?.[1];
      expect(fileId).toBeDefined();
      const content = await t.http.get(`/v1/files/${fileId}/content`).set(bearer(key)).expect(200);
      expect(Buffer.from(content.body as Buffer).toString() || content.text).toBe('total=7');
    });

    it('hands the tenant credential to the sandbox only as the declared variable, never in the claim', async () => {
      const key = await memberKey(t, 'acme');
      await t.http
        .put('/v1/tenants/acme/credentials/github.token')
        .set(bearer(t.adminKey))
        .send({ value: 'ghp_acmeOwnToken' })
        .expect(200);
      const res = await call('kb-cred', {}, key).expect(200);
      const env = res.body.output.env as Record<string, string>;
      expect(env.GITHUB_TOKEN).toBe('ghp_acmeOwnToken');
      expect(Object.keys(env).sort()).toEqual(['GITHUB_TOKEN', 'HOME', 'LANG', 'PATH', 'TMPDIR']);
      expect(JSON.stringify(env)).not.toContain(SERVICE_SECRET);
      expect(JSON.stringify(kube.created.at(-1))).not.toContain('ghp_acmeOwnToken');

      const without = await call('kb-echo', {}, key).expect(200);
      expect(without.body.output.env.GITHUB_TOKEN).toBeUndefined();
    });
  });

  describe('through the agent-sandbox router', () => {
    it('calls the sandbox by its X-Sandbox headers at router_url instead of its pod IP', async () => {
      const port = await freePort();
      const kube = new FakeKubernetes({
        namespace: NAMESPACE,
        token: TOKEN,
        warmPools: { 'python-pool': 'python-runtime' },
        startPod: (ip) => startSandboxPod(ip, port),
      });
      await kube.start();
      // The router's part: find the pod from the headers and pass the request on.
      const routed: Record<string, string | string[] | undefined>[] = [];
      const router = createHttpServer((req, res) => {
        routed.push(req.headers);
        const target = `http://${String(req.headers['x-sandbox-pod-ip'])}:${String(req.headers['x-sandbox-port'])}/execute`;
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          void fetch(target, { method: 'POST', body: Buffer.concat(chunks) }).then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': 'application/json' });
            res.end(await answer.text());
          });
        });
      });
      await new Promise<void>((done) => router.listen(0, '127.0.0.1', done));
      const routerUrl = `http://127.0.0.1:${(router.address() as { port: number }).port}`;
      const config = kubernetesConfig(kube, port);
      const t = await startApp('postgres', {
        config: {
          ...config,
          sandbox: { ...config.sandbox, kubernetes: { ...config.sandbox.kubernetes, router_url: routerUrl } },
        },
      });
      try {
        await approvedTool(t, 'kb-routed', sandboxTool(script('echo.py')));
        const res = await t.http
          .post('/v1/tool_calls')
          .set(bearer(t.adminKey))
          .send({ name: 'kb-routed', arguments: { via: 'router' } })
          .expect(200);
        expect(res.body.output.args).toEqual({ via: 'router' });
        const claim = kube.created.at(-1)!.metadata.name;
        expect(routed).toEqual([
          expect.objectContaining({
            'x-sandbox-id': `${claim}-sbx`,
            'x-sandbox-namespace': NAMESPACE,
            'x-sandbox-port': String(port),
            'x-sandbox-pod-ip': expect.stringMatching(/^127\.0\.\d+\.\d+$/),
          }),
        ]);
        expect(kube.deleted).toContain(claim);
      } finally {
        await t.close();
        await kube.close();
        await new Promise<void>((done) => router.close(() => done()));
      }
    });
  });

  describe('refused at start-up', () => {
    const refusal = async (config: Record<string, unknown>) => {
      const t = await startApp('postgres', { config });
      try {
        await approvedTool(t, 'kb-any', sandboxTool('/bin/true'));
        const res = await t.http
          .post('/v1/tool_calls')
          .set(bearer(t.adminKey))
          .send({ name: 'kb-any', arguments: {} })
          .expect(200);
        expect(res.body.status).toBe('failed');
        expect(res.body.error.code).toBe('not_executable');
        return res.body.error.message as string;
      } finally {
        await t.close();
      }
    };

    it('refuses sandbox tools, saying why, when RBAC does not grant the verbs (403), and runs them once it does', async () => {
      const port = await freePort();
      const kube = new FakeKubernetes({
        namespace: NAMESPACE,
        token: TOKEN,
        warmPools: { 'python-pool': 'python-runtime' },
        denied: ['create sandboxclaims', 'delete sandboxclaims'],
        startPod: (ip) => startSandboxPod(ip, port),
      });
      await kube.start();
      const t = await startApp('postgres', { config: kubernetesConfig(kube, port) });
      try {
        await approvedTool(t, 'kb-later', sandboxTool(script('echo.py')));
        const call = () =>
          t.http
            .post('/v1/tool_calls')
            .set(bearer(t.adminKey))
            .send({ name: 'kb-later', arguments: { n: 1 } });
        const refused = await call().expect(200);
        expect(refused.body.error).toEqual({
          code: 'not_executable',
          message: `Tool 'kb-later' cannot run: the service account may not create sandboxclaims.extensions.agents.x-k8s.io, delete sandboxclaims.extensions.agents.x-k8s.io in namespace ${NAMESPACE}; bind it a Role that grants them (the Helm chart does with sandboxRbac.create)`,
        });
        expect(kube.created).toHaveLength(0);

        // The Role is bound later: calls run again without a restart, once the check has been made again.
        kube.options.denied = [];
        let answer: { status?: string; output?: { args?: unknown } } = {};
        await waitFor(
          async () => {
            answer = (await call().expect(200)).body as typeof answer;
            if (answer.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 500));
            return answer.status === 'completed';
          },
          30_000,
          'a sandbox call to run once the Role is bound',
        );
        expect(answer.output?.args).toEqual({ n: 1 });
        expect(kube.claims.size).toBe(0);
      } finally {
        await t.close();
        await kube.close();
      }
    });

    it('refuses sandbox tools, saying why, when the API server cannot be reached', async () => {
      const kube = new FakeKubernetes({ namespace: NAMESPACE, token: TOKEN, warmPools: {} });
      await kube.start();
      const config = kubernetesConfig(kube, 1);
      await kube.close();
      // Nothing listens at the fake's port any more: a closed port on loopback.
      await new Promise<void>((done) => {
        const probe = createServer();
        probe.listen(0, '127.0.0.1', () => probe.close(() => done()));
      });
      const message = await refusal(config);
      expect(message).toMatch(
        /^Tool 'kb-any' cannot run: the Kubernetes API cannot be used \(.+\); is the agent-sandbox controller installed with its CRDs\?$/,
      );
    });
  });
});
