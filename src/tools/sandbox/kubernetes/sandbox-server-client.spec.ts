import { createServer, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { execute, ExecuteRequest } from './sandbox-server-client';

/** The pod's answer is untrusted: these servers answer what a broken or hostile sandbox could. */
describe('the sandbox server client', () => {
  let server: Server;
  let answer: (res: ServerResponse) => void;
  let url: string;
  const request: ExecuteRequest = {
    entrypoint: ['/bin/true'],
    stdin: '{}',
    env: {},
    timeout_seconds: 5,
    max_output_bytes: 1024,
  };
  const run = () => execute({ url, headers: {} }, request, new AbortController().signal);
  const json = (status: number, value: unknown) => (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/execute`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('reads an exit back as the run outcome', async () => {
    answer = json(200, { status: 'error', stdout: '{"a":1}', stderr: 'x\nlast line', exit_code: 3 });
    const outcome = await run();
    expect(outcome).toEqual({ ended: 'exited', exitCode: 3, stdout: Buffer.from('{"a":1}'), stderr: 'x\nlast line' });
  });

  it('stops reading an endless answer past the bound, as output over the limit', async () => {
    let written = 0;
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(65_536, 'a');
      const more = () => {
        while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written < 64 * 1024 * 1024) res.once('drain', more);
      };
      res.on('close', () => (written = Infinity));
      more();
    };
    expect(await run()).toMatchObject({ ended: 'stopped', reason: 'output_size' });
  });

  it('treats stdout over max_output_bytes as output over the limit, whatever the server says', async () => {
    answer = json(200, { stdout: 'x'.repeat(2048), stderr: '', exit_code: 0 });
    expect(await run()).toMatchObject({ ended: 'stopped', reason: 'output_size' });
  });

  it('checks the files the server sends back again: names, encoding and bounds', async () => {
    answer = json(200, {
      stdout: '',
      stderr: '',
      exit_code: 0,
      files_produced: {
        '../escape.txt': 'aGk=',
        'bad-encoding.txt': 'not base64!',
        'big.bin': Buffer.alloc(200).toString('base64'),
        'ok.txt': Buffer.from('fine').toString('base64'),
        'second.txt': 'aGk=',
        'third.txt': 'aGk=',
      },
      files_skipped: ['link: not a regular file (only regular files are returned)', 42],
    });
    const outcome = await execute(
      { url, headers: {} },
      { ...request, collect: { max_files: 2, max_file_bytes: 100, max_total_bytes: 1000 } },
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ ended: 'exited', exitCode: 0 });
    const output = (outcome as { output: { files: { name: string; content: Buffer }[]; skipped: string[] } }).output;
    expect(output.files.map((file) => [file.name, file.content.toString()])).toEqual([
      ['ok.txt', 'fine'],
      ['second.txt', 'hi'],
    ]);
    expect(output.skipped).toEqual([
      'link: not a regular file (only regular files are returned)',
      '"../escape.txt": not a file the sandbox server may return',
      '"bad-encoding.txt": not a file the sandbox server may return',
      '"big.bin": larger than 100 bytes',
      '"third.txt": more than 2 files were written',
    ]);
  });

  it('fails the run on an answer that is not the expected JSON, or a 429', async () => {
    answer = (res) => res.end('<html>bad gateway</html>');
    await expect(run()).rejects.toThrow('the sandbox server answered HTTP 200 without the expected JSON');
    answer = json(500, { error: 'disk full' });
    await expect(run()).rejects.toThrow('the sandbox server answered HTTP 500: disk full');
    answer = json(200, { stdout: '', stderr: '' });
    await expect(run()).rejects.toThrow('without an exit_code');
    answer = json(429, { error: 'busy' });
    await expect(run()).rejects.toThrow('the sandbox is at capacity (HTTP 429)');
  });
});
