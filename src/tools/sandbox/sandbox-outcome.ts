import type { Execution } from '../tool-executor';
import type { SandboxLimits, SandboxRunOutcome } from './sandbox-limits';

/** Exit codes of a run killed by a signal (128 + the signal's number), as a limit that was reached. */
const SIGNAL_EXITS: Record<number, string> = {
  137: 'it was killed (SIGKILL): the CPU time or memory limit was reached',
  139: 'it crashed (SIGSEGV), often from the memory limit',
  152: 'the CPU time limit was reached (SIGXCPU)',
  153: 'the file size limit was reached (SIGXFSZ)',
};

/**
 * The entrypoint contract, read back: exit code 0 with stdout that parses as JSON is the structured result,
 * any other stdout is text; a non-zero exit is the tool's error (the last line of stderr says why); a run
 * Toolgate had to stop fails the call with the limit it hit.
 */
export function executionOf(toolName: string, outcome: SandboxRunOutcome, limits: SandboxLimits): Execution {
  if (outcome.ended === 'stopped') return { refusal: stopped(toolName, outcome.reason, limits) };
  if (outcome.exitCode !== 0) {
    const why = SIGNAL_EXITS[outcome.exitCode] ?? lastLine(outcome.stderr) ?? 'no message on stderr';
    const message = `Tool '${toolName}' exited with code ${outcome.exitCode}: ${why}`;
    return { isError: true, payload: { kind: 'json', value: { error: { message, exit_code: outcome.exitCode } } } };
  }
  return { isError: false, payload: { kind: 'json', value: stdoutValue(outcome.stdout.toString('utf8')) } };
}

function stopped(
  toolName: string,
  reason: 'wall_time' | 'output_size' | 'aborted',
  limits: SandboxLimits,
): { code: string; message: string } {
  switch (reason) {
    case 'wall_time':
      return {
        code: 'sandbox_timeout',
        message: `Tool '${toolName}' ran longer than sandbox.limits.wall_time (${limits.wall_time} ms) and was stopped`,
      };
    case 'output_size':
      return {
        code: 'sandbox_output_too_large',
        message: `Tool '${toolName}' wrote more than sandbox.limits.max_output_bytes (${limits.max_output_bytes} bytes) to stdout and was stopped`,
      };
    case 'aborted':
      return { code: 'cancelled', message: `Tool '${toolName}' was stopped: the call was cancelled` };
  }
}

function stdoutValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

function lastLine(text: string): string | undefined {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.at(-1)?.slice(0, 500);
}
