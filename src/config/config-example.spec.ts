import { join } from 'node:path';
import { loadConfig, validateConfig } from './config.loader';

describe('config.example.yaml', () => {
  it('is a valid configuration whose core values are the defaults', () => {
    // Provider sections (builtins.*) are validated, with their own defaults, by each provider at start.
    const { builtins, ...example } = loadConfig({
      TOOLGATE_CONFIG: join(__dirname, '..', '..', 'config.example.yaml'),
    });
    const { builtins: _none, ...defaults } = validateConfig({});
    expect(example).toEqual(defaults);
    expect(Object.keys(builtins).sort()).toEqual(['code_interpreter', 'file_search', 'web_search']);
  });
});
