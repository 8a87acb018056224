import { anyOf } from './text';

export const EXECUTABLE_PAYLOAD = anyOf('i', [
  // Process spawning and dynamic evaluation in code.
  String.raw`\b(child_process|exec(Sync|File)?\s*\(|spawn(Sync)?\s*\(|os\.(system|popen)\s*\(|subprocess\.\w+\s*\(|Runtime\.getRuntime|__import__\s*\(|eval\s*\(|new Function\s*\()`,
  // Download-and-run, reverse shells, encoded PowerShell.
  String.raw`\b(curl|wget|iwr|irm)\b[^|\n]{0,200}\|\s*(sudo\s+)?(ba|z|da)?sh\b|\bbase64\s+(-d|--decode)\b[^\n]{0,40}\|\s*(ba|z)?sh\b`,
  String.raw`\/dev\/tcp\/|\bnc\s+(-\w+\s+)*-e\b|\bbash\s+-i\b|\bpowershell(\.exe)?\s+(-\w+\s+)*-(e|enc|encodedcommand)\b`,
  // Destruction, world-writable permissions, persistence.
  String.raw`\brm\s+-rf\s+[~/]|\bchmod\s+(-\w+\s+)*0?[0-7]?[2367][2367]\b|\bchmod\s+(-\w+\s+)*[ugoa]*\+[rwxs]+\s+[~/]`,
  String.raw`>>?\s{0,3}~?\/?[\w/.-]{0,256}\.(bashrc|zshrc|profile|bash_profile)\b|\bcrontab\s+-`,
]);

export const DECODE_AND_FOLLOW =
  /\b(decode|base64|unhex|deobfuscate|reverse)\b.{0,60}\b(follow|do|execute|run|obey|apply|carry out|act on)\b/i;
