import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ExecutableTool, Execution, ToolCall, ToolContext, ToolExecutor, ToolExecutorFor } from '../tool-executor';
import { executionOf } from './sandbox-outcome';
import { SandboxRunner } from './sandbox-runner';

/**
 * Runs catalog tools of `source.type = sandbox`: the tool's entrypoint in its template, isolated by the
 * configured runtime, at most `sandbox.max_concurrency` at once. The call's arguments go in as JSON on stdin;
 * the environment holds nothing of the service's, only the tenant's credential where the tool declares one.
 */
@Injectable()
@ToolExecutorFor('sandbox')
export class SandboxExecutor implements ToolExecutor {
  constructor(
    private readonly runtime: SandboxRunner,
    private readonly config: AppConfig,
  ) {}

  /** Refusals (isolation unavailable, unknown template) are answered by execute(), with their reason. */
  canExecute(): boolean {
    return true;
  }

  async execute(tool: ExecutableTool, call: ToolCall, ctx: ToolContext): Promise<Execution> {
    const unavailable = this.runtime.unavailableReason();
    if (unavailable) return notExecutable(`Tool '${call.name}' cannot run: ${unavailable}`);
    const template = tool.source.template ?? '';
    if (!this.runtime.knowsTemplate(template))
      return notExecutable(`Tool '${call.name}' cannot run: its sandbox template '${template}' is not configured here`);
    const command = entrypointCommand(tool.source.entrypoint);
    if (!command)
      return notExecutable(`Tool '${call.name}' cannot run: its entrypoint must be an absolute path (and arguments)`);
    const network = tool.permissions?.includes('network_external') === true;
    if (network && !this.config.sandbox.allow_network_external)
      return {
        refusal: {
          code: 'network_not_allowed',
          message: `Tool '${call.name}' declares network_external, which sandbox.allow_network_external does not allow`,
        },
      };
    const outcome = await this.runtime.run({
      template,
      command,
      stdin: JSON.stringify(call.arguments ?? {}),
      env: credentialEnv(ctx.credential),
      network,
      signal: ctx.signal,
    });
    return executionOf(call.name, outcome, this.config.sandbox.limits);
  }
}

/** `/path/to/program arg ...`, split on whitespace (no shell); the program must be an absolute path. */
export function entrypointCommand(entrypoint: string | undefined): string[] | undefined {
  const words = (entrypoint ?? '').trim().split(/\s+/);
  return words[0]?.startsWith('/') ? words : undefined;
}

/**
 * The tenant's credential as the one variable the tool declares: `credential_key` upper-cased, other
 * characters than letters and digits as "_" (github.token -> GITHUB_TOKEN).
 */
function credentialEnv(credential: ToolContext['credential']): Record<string, string> {
  if (!credential) return {};
  return { [credential.key.toUpperCase().replace(/[^A-Z0-9]/g, '_')]: credential.value };
}

function notExecutable(message: string): Execution {
  return { refusal: { code: 'not_executable', message } };
}
