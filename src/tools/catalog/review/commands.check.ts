import type { Findings } from './findings';
import { addressesModel, isDirective } from './sentence';
import { excerpt } from './text';

/**
 * Orders to run shell commands or fetch URLs outside the tool: a tool that needs a command run does it
 * itself. Strong signs are commands that only make sense against the user's machine (privilege, identity,
 * persistence, secrets, remote scripts); weaker ones (curl, wget, pip) count when the sentence orders them.
 */
const STRONG_COMMAND = new RegExp(
  [
    String.raw`\bsudo\s+\S`,
    String.raw`\bwhoami\b`,
    String.raw`\$\((?:whoami|hostname|id|uname|cat|env|printenv|pwd)\b`,
    String.raw`\$(?:USER|HOME|AWS_\w+|GITHUB_TOKEN|\{\w+\})|\$[A-Z][A-Z0-9_]{0,40}(?:TOKEN|KEY|SECRET|PASSWORD)\b`,
    String.raw`\bcrontab\b`,
    String.raw`~\/\.(?:bashrc|zshrc|profile|bash_profile|zprofile|config\/fish)\b|\.(?:bashrc|zshrc|bash_profile|zprofile)\b`,
    String.raw`\bchmod\s+(?:-R\s+)?[0-7]{3,4}\b`,
    String.raw`\brm\s+-(?:rf|fr|r)\b`,
    String.raw`\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b`,
    String.raw`\bnc\s+(?:-\w+\s+)*\d{1,3}(?:\.\d{1,3}){3}\b|\bscp\b[^.;\n]{0,80}\S@\S`,
    String.raw`\bpowershell(?:\.exe)?\s+-\w+|\b(?:iex|invoke-expression)\s{0,3}\(?\s{0,3}(?:irm|iwr|invoke-restmethod|invoke-webrequest|\(?new-object)\b`,
    String.raw`\bpython3?\s+-c\b|\bnode\s+-e\b|\bos\.environ\b|\bprintenv\b|\benv\s*>`,
    String.raw`\b(?:npm|pnpm|yarn)\s+(?:install|i|add)\s+(?:-g|--global)\b|--unsafe-perm\b|\bpip3?\s+install\b`,
    String.raw`\bgit\s+config\s+--global\b|\.git-credentials\b`,
    String.raw`\bexport\s+PATH=|\balias\s+\w+=`,
  ].join('|'),
  'i',
);
/** Commands that are fine to mention in docs but suspicious when ordered: fetching or running something. */
const WEAK_COMMAND =
  /\b(?:curl|wget|iwr|invoke-webrequest)\s+(?:-|https?:|[`'"])|\b(?:bash|sh|zsh)\s+-c\b|\b(?:bash|sh|zsh|source)\s+[~/.$][\w./-]{1,80}\.sh\b|\bgit clone\s+https?:\/\/|\b(?:hostname|uname -a|ifconfig|ipconfig|id -u)\b|\bcat\s+[~/$]|\b(?:node|python3?)\s+[~/.][\w./-]{1,80}\.(?:js|py)\b|\b(?:download|fetch|visit|ping|open|load)\b[^.;]{0,40}\bhttps?:\/\//i;
/** Who is to run it: the model with a shell, terminal or code tool. */
const RUN_ORDER =
  /\b(?:run|execute|issue|type|enter|paste|invoke|download|fetch|visit|install|append|add|open a terminal|in (?:a|the|your) (?:shell|terminal|console)|(?:shell|terminal|command|code execution|fetch) tool|using the shell|with your (?:shell|terminal|fetch|browser) tool)\b/i;

/**
 * `readerIsModel`: false for a tool's output, where install instructions written for people ("Install with:
 * curl … | sh") are common; there only orders that name the model as who must act count.
 */
export function checkCommandOrders(where: string, sentence: string, findings: Findings, readerIsModel = true): void {
  const strong = STRONG_COMMAND.exec(sentence);
  const weak = strong ? null : WEAK_COMMAND.exec(sentence);
  const command = strong ?? weak;
  if (!command) return;
  if (!readerIsModel && !addressesModel(sentence)) return;
  const ordered = isDirective(sentence) && RUN_ORDER.test(sentence);
  if (!ordered && !(strong && RUN_ORDER.test(sentence))) return;
  findings.add(
    'poisoning',
    strong ? 60 : 45,
    `${where} orders the model to run a command or fetch a URL (${excerpt(command[0].trim(), 40)}): "${excerpt(sentence)}"`,
    `a tool runs its own commands; remove the order from ${where} and block the tool if it was not expected`,
  );
}
