import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { FunctionProvider } from '../../registry/function-provider';
import type { ToolCall, ToolContext, ToolDefinition, ToolResult } from '../../tool-executor';
import { SandboxRunner } from '../../sandbox/sandbox-runner';
import { CODE_INTERPRETER_DEFINITION, CODE_INTERPRETER_TOOL } from './code-interpreter.tool';

/**
 * The program comes on stdin, not on the command line: arguments are visible to every process of the host
 * and limited in length. `-I` keeps Python from reading anything of the environment or the working directory.
 */
const PYTHON = ['/usr/bin/python3', '-I', '-c', 'import sys; exec(compile(sys.stdin.read(), "<code>", "exec"), {})'];

/**
 * The built-in `code_interpreter` (`builtins.code_interpreter`, off by default): Python code run in a
 * sandbox of the configured runtime, under the same limits and concurrency bound as sandbox tools. The
 * answer follows the Responses API's code_interpreter_call: `outputs` of type `logs`.
 */
@Injectable()
@FunctionProvider('code_interpreter')
export class CodeInterpreterProvider implements FunctionProvider {
  readonly name = 'code_interpreter';

  constructor(
    private readonly sandbox: SandboxRunner,
    private readonly config: AppConfig,
  ) {}

  tools(): ToolDefinition[] {
    return [CODE_INTERPRETER_DEFINITION];
  }

  canExecute(name: string): boolean {
    return name === CODE_INTERPRETER_TOOL;
  }

  async execute(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const unavailable = this.sandbox.unavailableReason();
    if (unavailable) return failure(call.id, 'not_executable', `code_interpreter cannot run: ${unavailable}`);
    const { code } = call.arguments as { code: string };
    const outcome = await this.sandbox.run({
      template: '',
      command: PYTHON,
      stdin: code,
      env: {},
      network: false,
      signal: ctx.signal,
    });
    const { limits } = this.config.sandbox;
    if (outcome.ended === 'stopped') {
      const why =
        outcome.reason === 'wall_time'
          ? `it ran longer than sandbox.limits.wall_time (${limits.wall_time} ms)`
          : outcome.reason === 'output_size'
            ? `it printed more than sandbox.limits.max_output_bytes (${limits.max_output_bytes} bytes)`
            : 'the call was cancelled';
      return failure(call.id, `sandbox_${outcome.reason}`, `The code was stopped: ${why}`);
    }
    const logs = outcome.stdout.toString('utf8');
    if (outcome.exitCode !== 0) {
      const message = `The code failed (exit code ${outcome.exitCode}): ${outcome.stderr.trim().split('\n').at(-1) ?? ''}`;
      return {
        callId: call.id,
        isError: true,
        output: { error: { code: 'code_failed', message }, outputs: [{ type: 'logs', logs: logs + outcome.stderr }] },
      };
    }
    return { callId: call.id, isError: false, output: { outputs: [{ type: 'logs', logs }] } };
  }
}

function failure(callId: string, code: string, message: string): ToolResult {
  return { callId, isError: true, output: { error: { code, message } } };
}
