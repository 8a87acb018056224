import { Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { SandboxModule } from '../../sandbox/sandbox.module';
import { CodeInterpreterFiles } from './code-interpreter-files';
import { CodeInterpreterSettings, resolveCodeInterpreterSettings } from './code-interpreter.config';
import { CodeInterpreterProvider } from './code-interpreter.service';

/**
 * The built-in `code_interpreter` provider (`builtins.code_interpreter`, off by default). Imported only when
 * enabled (its config is checked then); it runs code through the sandbox runtime of `sandbox.runtime`.
 */
@Module({
  imports: [SandboxModule],
  providers: [
    {
      provide: CodeInterpreterSettings,
      useFactory: (config: AppConfig) => resolveCodeInterpreterSettings(config),
      inject: [AppConfig],
    },
    CodeInterpreterFiles,
    CodeInterpreterProvider,
  ],
  exports: [CodeInterpreterFiles],
})
export class CodeInterpreterModule {}
