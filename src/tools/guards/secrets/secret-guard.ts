import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import type { GuardedCall, GuardFinding } from '../../invocation/call-guard';
import type { ResolvedTool } from '../../invocation/tool-policy';
import { outputOf, ToolPayload } from '../../tool-executor';
import { ChainMemory } from './chain-memory';
import { scanForSecrets, SecretFinding } from './secret-scanner';
import { WINDOW } from './stored-secret-index';
import { StoredSecrets } from './stored-secrets';

type Mode = 'off' | 'flag' | 'block';

/** Values nodes visited per scan; with the character cap, what one scan may cost. */
const MAX_NODES = 200_000;
/** Strings of a `secret_access` tool's result remembered for the chain. */
const MAX_SENSITIVE_STRINGS = 64;

export interface ArgumentSecrets {
  findings: GuardFinding[];
  /** The arguments with every secret found replaced, for the audit trail. */
  audited: unknown;
  /** The first finding that blocks the call. */
  blocking?: GuardFinding;
}

/**
 * Secrets at call time: in the arguments (credential formats, stored secrets, values out of earlier results
 * of the chain) and in results (flagged, or redacted before the caller sees them).
 */
@Injectable()
export class SecretGuard {
  constructor(
    private readonly config: AppConfig,
    private readonly stored: StoredSecrets,
    private readonly chains: ChainMemory,
  ) {}

  async checkArguments({ identity, tool, arguments: args, chain }: GuardedCall): Promise<ArgumentSecrets> {
    const catalog = this.config.catalog;
    const formats: Mode = tool.argumentScan ?? catalog.argument_scan;
    const stored: Mode = tool.argumentScan ?? catalog.argument_scan_stored;
    const chained: Mode = sendsOut(tool) ? catalog.chained_exfiltration : 'off';
    if (formats === 'off' && stored === 'off' && chained === 'off') return { findings: [], audited: args };
    const indexes = [];
    if (stored !== 'off') indexes.push(await this.stored.indexOf(identity.tenantId));
    const chainIndex = chained !== 'off' ? this.chains.indexOf(chain) : undefined;
    if (chainIndex) indexes.push(chainIndex);
    const scan = scanForSecrets(args, 'arguments', indexes, this.limits());
    const modeOf = (finding: SecretFinding): Mode =>
      finding.kind === 'chained_leak' ? chained : finding.stored ? stored : formats;
    const findings = scan.findings
      .filter((finding) => !isOwnCredential(tool, finding) && modeOf(finding) !== 'off')
      .map((finding) => guardFinding(finding, modeOf(finding) === 'block' ? 'blocked' : 'flagged'));
    if (scan.truncated) findings.push({ check: 'secret_in_arguments', kind: 'scan_truncated', action: 'flagged' });
    return { findings, audited: scan.redacted, blocking: findings.find((finding) => finding.action === 'blocked') };
  }

  async checkResult(
    { identity, tool, chain }: GuardedCall,
    payload: ToolPayload,
  ): Promise<{ payload: ToolPayload; findings: GuardFinding[] }> {
    const catalog = this.config.catalog;
    const mode = catalog.result_secret_scan;
    const remember = catalog.chained_exfiltration !== 'off';
    if (mode === 'off' && !remember) return { payload, findings: [] };
    const source = `result:${tool.name}`;
    const onSecret = remember ? (value: string) => this.chains.remember(chain, source, value) : undefined;
    const index = await this.stored.indexOf(identity.tenantId);
    const scan = scanForSecrets(outputOf(payload), 'output', [index], this.limits(), onSecret);
    if (remember && tool.permissions?.includes('secret_access')) this.rememberAll(chain, source, outputOf(payload));
    if (mode === 'off' || scan.findings.length === 0) return { payload, findings: [] };
    const action = mode === 'redact' ? 'redacted' : 'flagged';
    const findings = scan.findings.map((finding) => ({ ...guardFinding(finding, action), check: 'secret_in_result' }));
    return { payload: action === 'redacted' ? withOutput(payload, scan.redacted) : payload, findings };
  }

  /** Everything a `secret_access` tool returns is sensitive: its strings long enough to be told apart. */
  private rememberAll(chain: string, source: string, output: unknown): void {
    let kept = 0;
    const stack = [output];
    let visited = 0;
    while (stack.length > 0 && kept < MAX_SENSITIVE_STRINGS && visited < MAX_NODES) {
      const value = stack.pop();
      visited += 1;
      if (typeof value === 'string') {
        if (value.length >= WINDOW) {
          this.chains.remember(chain, source, value);
          kept += 1;
        }
      } else if (value && typeof value === 'object') {
        for (const child of Object.values(value)) stack.push(child);
      }
    }
  }

  private limits() {
    return { maxChars: this.config.catalog.secret_scan_max_chars, maxNodes: MAX_NODES };
  }
}

/** Tools that can carry data out of the organisation. */
function sendsOut(tool: ResolvedTool): boolean {
  return tool.permissions?.includes('network_external') === true;
}

/** A `secret_access` tool may be handed its own credential (e.g. to verify or rotate it), never another one. */
function isOwnCredential(tool: ResolvedTool, finding: SecretFinding): boolean {
  const key = tool.governance?.credentialKey;
  return (
    key !== undefined && tool.permissions?.includes('secret_access') === true && finding.name === `credential:${key}`
  );
}

function guardFinding(finding: SecretFinding, action: GuardFinding['action']): GuardFinding {
  return {
    check: finding.kind === 'chained_leak' ? 'chained_exfiltration' : 'secret_in_arguments',
    kind: finding.kind,
    path: finding.path,
    action,
    ...(finding.name && { source: finding.name }),
  };
}

/** The payload with its output replaced by the redacted copy, in the payload's own shape. */
function withOutput(payload: ToolPayload, output: unknown): ToolPayload {
  if (payload.kind === 'json') return { kind: 'json', value: output };
  const { content, structuredContent } = output as Pick<typeof payload.result, 'content' | 'structuredContent'>;
  return {
    kind: 'mcp',
    result: { ...payload.result, content, ...(structuredContent !== undefined && { structuredContent }) },
  };
}
