import { Module } from '@nestjs/common';
import { SandboxModule } from '../../sandbox/sandbox.module';
import { CodeInterpreterProvider } from './code-interpreter.service';

/**
 * The built-in `code_interpreter` provider (`builtins.code_interpreter`, off by default). Imported only when
 * enabled; it runs code through the sandbox runtime of `sandbox.runtime`.
 */
@Module({ imports: [SandboxModule], providers: [CodeInterpreterProvider] })
export class CodeInterpreterModule {}
