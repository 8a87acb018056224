import OpenAI from 'openai';
import { FakeChatServer } from '../bench/support/fake-chat-server';
import { bearer, startApp, TestApp } from './support/app';

/**
 * The code_interpreter tool type of /v1/responses, through the official `openai` SDK, with a scripted upstream
 * model: the code runs in a local sandbox and comes back as a code_interpreter_call item.
 */
describe('/v1/responses with code_interpreter', () => {
  let t: TestApp;
  let upstream: FakeChatServer;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await FakeChatServer.start();
    t = await startApp('postgres', {
      config: {
        builtins: { file_search: { enabled: false }, code_interpreter: { enabled: true } },
        engine: { upstream: { url: upstream.url } },
      },
    });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  it('runs the code the model writes and streams code_interpreter_call events', async () => {
    const code = 'print(sum(range(101)))';
    upstream.script(
      { toolCalls: [{ name: 'code_interpreter', arguments: JSON.stringify({ code }) }] },
      { text: '5050' },
    );
    const stream = await client.responses.create({
      model: 'any',
      input: 'Add the numbers from 1 to 100',
      stream: true,
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') final = event.response;
    }
    expect(types).toEqual(
      expect.arrayContaining([
        'response.code_interpreter_call.in_progress',
        'response.code_interpreter_call.interpreting',
        'response.code_interpreter_call.completed',
      ]),
    );
    expect(final!.output[0]).toEqual({
      id: expect.stringMatching(/^ci_/),
      type: 'code_interpreter_call',
      status: 'completed',
      code,
      container_id: expect.stringMatching(/^cntr_/),
      outputs: [{ type: 'logs', logs: '5050\n' }],
    });
    expect(final!.output.at(-1)).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: '5050' }] });
    // The model was given what the code printed.
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).toContain('5050\\\\n');

    const audit = await t.http.get(`/v1/tools/audit?response_id=${final!.id}`).set(bearer(t.adminKey)).expect(200);
    expect(audit.body.data.map((record: { tool_name: string }) => record.tool_name)).toEqual(['code_interpreter']);
  });

  it('refuses a container other than {"type": "auto"}, in the error envelope', async () => {
    const res = await t.http
      .post('/v1/responses')
      .set(bearer(t.adminKey))
      .send({ model: 'any', input: 'hi', tools: [{ type: 'code_interpreter', container: 'cntr_123' }] })
      .expect(400);
    expect(res.body.error).toMatchObject({ param: 'tools[0].container', code: 'unsupported_value' });
  });
});
