import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI, { toFile } from 'openai';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';
import { memberKey } from './support/catalog';

/** Waits (without asserting how long it took) until `check` holds, failing after a generous bound. */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Still not true after 30 s: ${what}`);
}

const calls = (...codes: string[]) =>
  codes.map((code) => ({ toolCalls: [{ name: 'code_interpreter', arguments: JSON.stringify({ code }) }] }));

/**
 * code_interpreter with files: Files API files put in /mnt/data, files written there stored as the caller's
 * files, one sandbox shared by the calls of one /v1/responses run and deleted when it ends, and hostile output
 * directories (many files, links, FIFOs) read back within bounds. Real sandboxes, the official SDK.
 */
describe('code_interpreter files and per-response sandboxes', () => {
  let t: TestApp;
  let upstream: FakeChatServer;
  let client: OpenAI;
  let keyA: string;
  let keyB: string;
  const workRoot = mkdtempSync(join(tmpdir(), 'toolgate-work-root-'));
  const sessions = () => readdirSync(workRoot);

  beforeAll(async () => {
    // The sandboxes' users must be able to pass through it (as through /tmp).
    chmodSync(workRoot, 0o711);
    upstream = await FakeChatServer.start();
    t = await startApp('postgres', {
      config: {
        builtins: { code_interpreter: { enabled: true, files: { max_output_files: 5 } } },
        engine: { upstream: { url: upstream.url } },
        sandbox: { max_concurrency: 2, limits: { wall_time: '20s' }, local: { work_root: workRoot } },
        tools: { default_timeout: '30s' },
      },
    });
    keyA = await memberKey(t, 'tenant-a');
    keyB = await memberKey(t, 'tenant-b');
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: keyA, maxRetries: 0 });
  });

  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  beforeEach(() => upstream.reset());

  it('gives the code the request files, returns the files it writes, and shares one sandbox between the calls of a response', async () => {
    const csv = await client.files.create({
      file: await toFile(Buffer.from('item,amount\napples,3\npears,4\nplums,5\n'), 'sales.csv'),
      purpose: 'assistants',
    });
    const first = [
      'import csv',
      'rows = list(csv.DictReader(open("/mnt/data/sales.csv")))',
      'total = sum(int(row["amount"]) for row in rows)',
      'open("/mnt/data/total.txt", "w").write(f"total={total}\\n")',
      'print(len(rows), total)',
    ].join('\n');
    // The second call reads what the first wrote: the same sandbox.
    const second =
      'print(open("/mnt/data/total.txt").read().strip(), open("/sandbox/../mnt/data/sales.csv").read().count("\\n"))';
    upstream.script(...calls(first, second), { text: 'The total is in total.txt.' });

    const response = await client.responses.create({
      model: 'any',
      input: 'Sum the amounts',
      tools: [{ type: 'code_interpreter', container: { type: 'auto', file_ids: [csv.id] } }],
    });

    expect(response.status).toBe('completed');
    const [call1, call2, message] = response.output;
    expect(call1).toMatchObject({
      type: 'code_interpreter_call',
      status: 'completed',
      container_id: expect.stringMatching(/^cntr_/),
      outputs: [{ type: 'logs', logs: '3 12\n' }],
    });
    expect(call2).toMatchObject({
      type: 'code_interpreter_call',
      status: 'completed',
      outputs: [{ type: 'logs', logs: 'total=12 4\n' }],
    });
    // One container for the response.
    expect((call2 as { container_id: string }).container_id).toBe((call1 as { container_id: string }).container_id);
    // The model was told where the files are, and saw the file the code wrote.
    const offered = upstream.requests[0].body.tools!.find((tool) => tool.function.name === 'code_interpreter')!;
    expect(offered.function).toMatchObject({ description: expect.stringContaining('/mnt/data: "sales.csv"') });
    expect(JSON.stringify(offered.function.parameters)).not.toContain('file_ids');
    expect(JSON.stringify(upstream.requests[1].body.messages)).toContain('total.txt');

    // The produced file, as OpenAI cites it: a container_file_citation on the message, over its name.
    expect(message).toMatchObject({ type: 'message' });
    const text = (message as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations).toEqual([
      {
        type: 'container_file_citation',
        container_id: (call1 as { container_id: string }).container_id,
        file_id: expect.stringMatching(/^file-/),
        filename: 'total.txt',
        start_index: text.text.indexOf('total.txt'),
        end_index: text.text.indexOf('total.txt') + 'total.txt'.length,
      },
    ]);
    const fileId = (text.annotations[0] as { file_id: string }).file_id;
    const produced = await client.files.retrieve(fileId);
    expect(produced).toMatchObject({ filename: 'total.txt', purpose: 'assistants_output', bytes: 9 });
    const content = await t.http.get(`/v1/files/${fileId}/content`).set(bearer(keyA)).expect(200);
    expect(Buffer.from(content.body as Buffer).toString() || content.text).toBe('total=12\n');
    // The file is the caller's tenant's only.
    await t.http.get(`/v1/files/${fileId}`).set(bearer(keyB)).expect(404);

    // The response's sandbox is gone now that it ended.
    expect(sessions()).toEqual([]);

    // A later response starts from an empty sandbox.
    upstream.script(...calls('import os\nprint(sorted(os.listdir("/mnt/data")), sorted(os.listdir("/sandbox")))'), {
      text: 'nothing',
    });
    const later = await client.responses.create({
      model: 'any',
      input: 'What is there?',
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    });
    expect(later.output[0]).toMatchObject({ outputs: [{ type: 'logs', logs: '[] []\n' }] });
    expect(sessions()).toEqual([]);
  });

  it("refuses another tenant's file id with a 400 naming it, and runs nothing", async () => {
    const theirs = await new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: keyB, maxRetries: 0 }).files.create({
      file: await toFile(Buffer.from('secret,1\n'), 'theirs.csv'),
      purpose: 'assistants',
    });
    const before = await client.files.list();
    upstream.script(...calls('open("/mnt/data/leak.txt", "w").write("x")'), { text: 'done' });
    const res = await t.http
      .post('/v1/responses')
      .set(bearer(keyA))
      .send({
        model: 'any',
        input: 'read it',
        tools: [{ type: 'code_interpreter', container: { type: 'auto', file_ids: [theirs.id] } }],
      })
      .expect(400);
    expect(res.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'file_not_found',
      param: 'tools[0].container.file_ids[0]',
      message: `No file found with id '${theirs.id}'`,
    });
    expect(upstream.requests).toHaveLength(0);
    expect((await client.files.list()).data.map((file) => file.id)).toEqual(before.data.map((file) => file.id));
    expect(sessions()).toEqual([]);

    // Over /v1/tool_calls the same id fails the call before any code runs.
    const call = await t.http
      .post('/v1/tool_calls')
      .set(bearer(keyA))
      .send({ name: 'code_interpreter', arguments: { code: 'print("ran")', file_ids: [theirs.id] } })
      .expect(200);
    expect(call.body).toMatchObject({ status: 'failed', error: { message: `No file found with id '${theirs.id}'` } });
    expect(JSON.stringify(call.body)).not.toContain('ran\\n');
  });

  it('takes file_ids over /v1/tool_calls and answers the written files there, each call in a fresh sandbox', async () => {
    const input = await client.files.create({
      file: await toFile(Buffer.from('hello'), 'in.txt'),
      purpose: 'user_data',
    });
    const code = [
      'import os',
      'print(sorted(os.listdir("/mnt/data")))',
      'open("/mnt/data/out.txt", "w").write(open("/mnt/data/in.txt").read().upper())',
    ].join('\n');
    const call = (args: Record<string, unknown>) =>
      t.http.post('/v1/tool_calls').set(bearer(keyA)).send({ name: 'code_interpreter', arguments: args }).expect(200);
    const first = await call({ code, file_ids: [input.id] });
    expect(first.body).toMatchObject({
      status: 'completed',
      output: {
        outputs: [{ type: 'logs', logs: "['in.txt']\n" }],
        files: [{ file_id: expect.stringMatching(/^file-/), filename: 'out.txt', bytes: 5, path: '/mnt/data/out.txt' }],
      },
    });
    const out = await t.http
      .get(`/v1/files/${first.body.output.files[0].file_id}/content`)
      .set(bearer(keyA))
      .expect(200);
    expect(out.text || Buffer.from(out.body as Buffer).toString()).toBe('HELLO');
    const second = await call({ code: 'import os\nprint(os.listdir("/mnt/data"))' });
    expect(second.body.output).toEqual({ outputs: [{ type: 'logs', logs: '[]\n' }], files: [] });
    expect(sessions()).toEqual([]);
  });

  it('answers the written files over /mcp as structured content, and streams their citations in /v1/responses', async () => {
    const input = await client.files.create({
      file: await toFile(Buffer.from('3,4'), 'pair.csv'),
      purpose: 'assistants',
    });
    const mcp = new Client({ name: 'files-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: bearer(keyA) } }),
    );
    try {
      const result = await mcp.callTool({
        name: 'code_interpreter',
        arguments: {
          code: 'a, b = open("/mnt/data/pair.csv").read().split(",")\nopen("/mnt/data/sum.txt", "w").write(str(int(a) + int(b)))',
          file_ids: [input.id],
        },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        files: [{ file_id: expect.stringMatching(/^file-/), filename: 'sum.txt', bytes: 1 }],
      });
    } finally {
      await mcp.close();
    }

    upstream.script(...calls('open("/mnt/data/chart.txt", "w").write("**")'), { text: 'See chart.txt' });
    const stream = await client.responses.create({
      model: 'any',
      input: 'Draw',
      stream: true,
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    });
    const annotations: unknown[] = [];
    for await (const event of stream) {
      if (event.type === 'response.output_text.annotation.added') annotations.push(event.annotation);
    }
    expect(annotations).toEqual([
      expect.objectContaining({
        type: 'container_file_citation',
        filename: 'chart.txt',
        start_index: 4,
        end_index: 13,
      }),
    ]);
  });

  it('reads back only regular files, within the count bound, and says what it left out', async () => {
    const code = [
      'import os',
      'for i in range(10000):',
      '    open(f"/mnt/data/f{i:05d}.txt", "w").write(str(i))',
      'os.symlink("/etc/passwd", "/mnt/data/passwd")',
      'os.symlink("/", "/mnt/data/root")',
      'os.mkfifo("/mnt/data/pipe")',
      'os.mkdir("/mnt/data/sub")',
      'print("written")',
    ].join('\n');
    const res = await t.http
      .post('/v1/tool_calls')
      .set(bearer(keyA))
      .send({ name: 'code_interpreter', arguments: { code } })
      .expect(200);
    expect(res.body.status).toBe('completed');
    const { files, files_skipped: skipped } = res.body.output as {
      files: { filename: string; bytes: number }[];
      files_skipped: string[];
    };
    expect(files.map((file) => file.filename)).toEqual([
      'f00000.txt',
      'f00001.txt',
      'f00002.txt',
      'f00003.txt',
      'f00004.txt',
    ]);
    expect(skipped).toEqual(
      expect.arrayContaining([
        'passwd: a symbolic link (only regular files are returned)',
        'root: a symbolic link (only regular files are returned)',
        'pipe: not a regular file (only regular files are returned)',
        'sub: not a regular file (only regular files are returned)',
        'f00005.txt: more than 5 files were written',
        expect.stringMatching(/^\.\.\. and \d+ more entries left out$/),
      ]),
    );
    expect(skipped.length).toBeLessThanOrEqual(21);
    await t.http.get('/healthz').expect(200);
    expect(sessions()).toEqual([]);
  });

  it('deletes the sandbox of a cancelled background response and of a streamed response whose client went away', async () => {
    const sleeper =
      'import time\nopen("/mnt/data/started", "w").write("1")\nprint("sleeping", flush=True)\ntime.sleep(60)';
    upstream.script(...calls(sleeper), { text: 'never' });
    const background = await client.responses.create({
      model: 'any',
      input: 'sleep',
      background: true,
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    });
    await eventually(() => sessions().length === 1, 'the background response has its sandbox');
    await client.responses.cancel(background.id);
    await eventually(() => sessions().length === 0, 'the cancelled response sandbox is deleted');
    expect((await client.responses.retrieve(background.id)).status).toBe('cancelled');

    upstream.reset();
    upstream.script(...calls(sleeper), { text: 'never' });
    const abort = new AbortController();
    const stream = await client.responses.create(
      {
        model: 'any',
        input: 'sleep',
        stream: true,
        tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
      },
      { signal: abort.signal },
    );
    let interpreting = false;
    try {
      for await (const event of stream) {
        if (event.type !== 'response.code_interpreter_call.interpreting') continue;
        interpreting = true;
        await eventually(() => sessions().length === 1, 'the streamed response has its sandbox');
        abort.abort();
      }
    } catch {
      // The SDK may end the iteration with the abort.
    }
    expect(interpreting).toBe(true);
    await eventually(() => sessions().length === 0, 'the abandoned response sandbox is deleted');
    await t.http.get('/healthz').expect(200);
  });
});

describe('code_interpreter at start-up', () => {
  it('refuses to start enabled while sandbox.runtime is off, naming the fix', async () => {
    await expect(
      startApp('postgres', {
        config: { builtins: { code_interpreter: { enabled: true } }, sandbox: { runtime: 'off' } },
      }),
    ).rejects.toThrow(
      'builtins.code_interpreter.enabled is true but sandbox.runtime is off, so no code could run: set ' +
        'sandbox.runtime to local or kubernetes, or builtins.code_interpreter.enabled to false',
    );
  });
});
