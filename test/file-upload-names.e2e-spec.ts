import { request as httpRequest } from 'node:http';
import OpenAI, { toFile } from 'openai';
import { bearer, startApp, TestApp } from './support/app';
import { ENGINES } from './support/databases';

const NAME = 'résumé 日本 🦀.txt';

/** Sends one multipart upload whose file part carries `disposition` as written, byte for byte. */
function rawUpload(t: TestApp, disposition: string): Promise<{ status: number; body: { filename?: string } }> {
  const boundary = 'toolgate-boundary-7d1f';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nassistants\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\n`),
    Buffer.from(`Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`),
  ]);
  const url = new URL('/v1/files', t.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        ...bearer(t.adminKey),
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': body.length,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as { filename?: string } }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Non-ASCII file names arrive, are stored and come back exactly as the client named the file. */
describe.each(ENGINES)('uploaded file names outside ASCII (%s)', (engine) => {
  let t: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    t = await startApp(engine, { config: { logging: { level: 'error' } } });
    client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey: t.adminKey, maxRetries: 0 });
  }, 300_000);
  afterAll(() => t?.close());

  it('keeps the name an openai SDK upload gives the file, in every answer and the download header', async () => {
    const file = await client.files.create({ file: await toFile(Buffer.from('bonjour'), NAME), purpose: 'assistants' });
    expect(file.filename).toBe(NAME);
    expect((await client.files.retrieve(file.id)).filename).toBe(NAME);
    const listed: string[] = [];
    for await (const item of client.files.list()) if (item.id === file.id) listed.push(item.filename);
    expect(listed).toEqual([NAME]);
    const download = await t.http.get(`/v1/files/${file.id}/content`).set(bearer(t.adminKey)).expect(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(NAME)}`);
  });

  it('reads raw UTF-8 in filename= and an RFC 5987 filename*= alike', async () => {
    const raw = await rawUpload(t, `filename="${NAME}"`);
    expect(raw).toEqual({ status: 200, body: expect.objectContaining({ filename: NAME }) });
    const extended = await rawUpload(t, `filename="resume.txt"; filename*=UTF-8''${encodeURIComponent(NAME)}`);
    expect(extended).toEqual({ status: 200, body: expect.objectContaining({ filename: NAME }) });
  });
});
