import { Injectable } from '@nestjs/common';
import { ApiError } from '../../../common/api-error';
import { AppConfig } from '../../../config/app-config';
import { FunctionProvider } from '../../registry/function-provider';
import type { ToolCall, ToolContext, ToolDefinition, ToolResult } from '../../tool-executor';
import type { SandboxFile, SandboxRunOutcome } from '../../sandbox/sandbox-limits';
import { SandboxRun, SandboxRunner, SharedSandbox } from '../../sandbox/sandbox-runner';
import { CodeInterpreterFiles, OutputFile, sandboxPath } from './code-interpreter-files';
import { CODE_INTERPRETER_DEFINITION, CODE_INTERPRETER_TOOL } from './code-interpreter.tool';

/**
 * The program comes on stdin, not on the command line: arguments are visible to every process of the host
 * and limited in length. `-I` keeps Python from reading anything of the environment or the working directory.
 */
const PYTHON = ['/usr/bin/python3', '-I', '-c', 'import sys; exec(compile(sys.stdin.read(), "<code>", "exec"), {})'];

/** The scope key of a run's shared sandbox. */
const SHARED_SANDBOX = 'code_interpreter.sandbox';

/** A response run's sandbox, and which files of `file_ids` are in it already. */
interface RunSandbox {
  sandbox: SharedSandbox;
  placed: Set<string>;
  release(): Promise<void>;
}

/**
 * The built-in `code_interpreter` (`builtins.code_interpreter`, off by default): Python code run in a
 * sandbox of the configured runtime, under the same limits and concurrency bound as sandbox tools. Files of
 * `file_ids` are put in /mnt/data; the files the code writes there come back as the caller's files. The calls
 * of one /v1/responses run share one sandbox (its scope), released when the response ends; any other call has
 * a fresh one. The answer follows the Responses API's code_interpreter_call: `outputs` of type `logs`.
 */
@Injectable()
@FunctionProvider('code_interpreter')
export class CodeInterpreterProvider implements FunctionProvider {
  readonly name = 'code_interpreter';

  constructor(
    private readonly sandbox: SandboxRunner,
    private readonly files: CodeInterpreterFiles,
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
    const { code, file_ids: fileIds = [] } = call.arguments as { code: string; file_ids?: string[] };
    const shared = ctx.scope
      ? await ctx.scope.share<RunSandbox>(SHARED_SANDBOX, () => {
          const sandbox = this.sandbox.openSession();
          return { sandbox, placed: new Set(), release: () => sandbox.release() };
        })
      : undefined;
    let inputs: SandboxFile[];
    try {
      // Checked again at every call: a file may have been deleted since the response was created.
      const checked = await this.files.check(ctx.tenantId, fileIds, 'file_ids');
      inputs = await this.files.read(checked.filter(({ file }) => !shared?.placed.has(file.id)));
      for (const { file } of checked) shared?.placed.add(file.id);
    } catch (error) {
      if (error instanceof ApiError) return failure(call.id, error.code ?? 'invalid_file', error.message);
      throw error;
    }
    const request: SandboxRun = {
      template: '',
      command: PYTHON,
      stdin: code,
      env: {},
      network: false,
      signal: ctx.signal,
      files: inputs,
      collect: this.files.collectLimits(),
    };
    const outcome = await (shared ? shared.sandbox.run(request) : this.sandbox.run(request));
    return this.resultOf(call.id, ctx.tenantId, outcome);
  }

  private async resultOf(callId: string, tenantId: string, outcome: SandboxRunOutcome): Promise<ToolResult> {
    const { limits } = this.config.sandbox;
    if (outcome.ended === 'stopped') {
      const why =
        outcome.reason === 'wall_time'
          ? `it ran longer than sandbox.limits.wall_time (${limits.wall_time} ms)`
          : outcome.reason === 'output_size'
            ? `it printed more than sandbox.limits.max_output_bytes (${limits.max_output_bytes} bytes)`
            : 'the call was cancelled';
      return failure(callId, `sandbox_${outcome.reason}`, `The code was stopped: ${why}`);
    }
    const logs = outcome.stdout.toString('utf8');
    // Files written before a failure are kept too: they may be what explains it.
    const files = outcome.output ? await this.files.save(tenantId, outcome.output.files) : undefined;
    const fileFields = {
      ...(files && { files: files.map(withPath) }),
      ...(outcome.output?.skipped.length && { files_skipped: outcome.output.skipped }),
    };
    if (outcome.exitCode !== 0) {
      const message = `The code failed (exit code ${outcome.exitCode}): ${outcome.stderr.trim().split('\n').at(-1) ?? ''}`;
      return {
        callId,
        isError: true,
        output: {
          error: { code: 'code_failed', message },
          outputs: [{ type: 'logs', logs: logs + outcome.stderr }],
          ...fileFields,
        },
      };
    }
    return { callId, isError: false, output: { outputs: [{ type: 'logs', logs }], ...fileFields } };
  }
}

function withPath(file: OutputFile): OutputFile & { path: string } {
  return { ...file, path: sandboxPath(file.filename) };
}

function failure(callId: string, code: string, message: string): ToolResult {
  return { callId, isError: true, output: { error: { code, message } } };
}
