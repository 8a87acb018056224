import { ConfigError } from '../../../config/config.loader';
import { resolveCodeInterpreterSettings } from './code-interpreter.config';

describe('builtins.code_interpreter at start-up', () => {
  const settings = (section: unknown, runtime = 'local') =>
    resolveCodeInterpreterSettings({ builtins: { code_interpreter: section }, sandbox: { runtime } });

  it('gives every file bound a default and reads sizes as written', () => {
    expect(settings({ enabled: true })).toEqual({
      maxInputBytes: 50 * 1024 * 1024,
      maxOutputFiles: 20,
      maxOutputFileBytes: 10 * 1024 * 1024,
      maxOutputBytes: 50 * 1024 * 1024,
    });
    expect(settings({ enabled: true, files: { max_output_file_bytes: '2MB', max_output_files: '3' } })).toMatchObject({
      maxOutputFileBytes: 2 * 1024 * 1024,
      maxOutputFiles: 3,
    });
  });

  it('stops start-up with one line naming the key and the fix', () => {
    expect(() => settings({ enabled: true }, 'off')).toThrow(
      new ConfigError(
        'builtins.code_interpreter.enabled is true but sandbox.runtime is off, so no code could run: set ' +
          'sandbox.runtime to local or kubernetes, or builtins.code_interpreter.enabled to false',
      ),
    );
    expect(() => settings({ enabled: true, file: {} })).toThrow(/builtins\.code_interpreter/);
    expect(() => settings({ enabled: true, files: { max_output_files: -1 } })).toThrow(
      /builtins\.code_interpreter\.files\.max_output_files/,
    );
  });
});
