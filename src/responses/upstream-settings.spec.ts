import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../common/api-error';
import { ConfigError } from '../config/config.loader';
import { configSchema } from '../config/config.schema';
import { resolveUpstreamSettings, upstreamModelFor } from './upstream-settings';

const engine = (upstream: Record<string, unknown>) => configSchema.parse({ engine: { upstream } }).engine;

describe('upstream settings', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'upstream-key-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is off without a URL', () => {
    expect(resolveUpstreamSettings(engine({}), {})).toBeUndefined();
  });

  it('takes the key from the key file before the environment, trimmed', () => {
    const file = join(dir, 'key');
    writeFileSync(file, 'sk-from-file\n');
    const env = { ENGINE_UPSTREAM_API_KEY: 'sk-from-env' };
    expect(resolveUpstreamSettings(engine({ url: 'http://llm:8000/v1/' }), env)).toMatchObject({
      url: 'http://llm:8000/v1',
      apiKey: 'sk-from-env',
    });
    expect(resolveUpstreamSettings(engine({ url: 'http://llm:8000/v1', api_key_file: file }), env)?.apiKey).toBe(
      'sk-from-file',
    );
  });

  it('stops start-up on a missing or empty key file, naming the key and never a value', () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    const resolve = (file: string) => () =>
      resolveUpstreamSettings(engine({ url: 'http://llm:8000/v1', api_key_file: file }), {});
    expect(resolve(join(dir, 'absent'))).toThrow(ConfigError);
    expect(resolve(join(dir, 'absent'))).toThrow(/engine\.upstream\.api_key_file = .*cannot read it \(ENOENT\)/);
    expect(resolve(empty)).toThrow(/the file is empty/);
  });

  it('maps requested model names: one model, a map with "*", or the name itself', () => {
    const settings = (model?: unknown) => resolveUpstreamSettings(engine({ url: 'http://llm/v1', model }), {})!;
    expect(upstreamModelFor(settings(), 'gpt-4o')).toBe('gpt-4o');
    expect(upstreamModelFor(settings('qwen'), 'gpt-4o')).toBe('qwen');
    const mapped = settings({ 'gpt-4o': 'qwen', '*': 'llama' });
    expect(upstreamModelFor(mapped, 'gpt-4o')).toBe('qwen');
    expect(upstreamModelFor(mapped, 'other')).toBe('llama');
    const strict = settings({ 'gpt-4o': 'qwen', 'gpt-4o-mini': 'phi' });
    let error: unknown;
    try {
      upstreamModelFor(strict, 'gpt-5');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, param: 'model', code: 'model_not_found' });
    expect((error as Error).message).toContain('available: gpt-4o, gpt-4o-mini');
  });
});
