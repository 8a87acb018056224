import { scanOutputText } from './auto-review';

export interface OutputScanResult {
  injectionSuspected: boolean;
  /** How many of the findings were signs of injection (the findings themselves may quote the text). */
  findings: number;
  /** Whether the text was longer than the cap and its end went unread. */
  truncated: boolean;
}

/**
 * Reads a tool result's text for instructions addressed to the model, with the checks the catalog runs on
 * tool descriptions (hidden instructions, orders to the model, requests for secrets or other tools' data,
 * exfiltration endpoints, invisible or encoded text) and the same sentence model (`sentenceModel: false`, from
 * catalog.review.sentence_model, leaves it out), in linear time over at most `maxChars` characters.
 * Mere mentions (a URL, a file name) are normal in results and are not counted.
 */
export function scanToolOutput(
  text: string,
  maxChars: number,
  options: { sentenceModel?: boolean } = {},
): OutputScanResult {
  const { flags } = scanOutputText(text, maxChars, options);
  return { injectionSuspected: flags.length > 0, findings: flags.length, truncated: text.length > maxChars };
}

/**
 * The text of an MCP tool result that reaches the model: text content items and every string in
 * structuredContent, joined, stopping once `maxChars` are collected. The walk visits at most `maxNodes`
 * values, so a huge result costs no more than the cap.
 */
export function resultText(output: unknown, maxChars: number, maxNodes = 100_000): string {
  const parts: string[] = [];
  let length = 0;
  let visited = 0;
  const add = (text: string) => {
    if (length >= maxChars) return;
    const part = text.slice(0, maxChars - length + 1);
    parts.push(part);
    length += part.length + 1;
  };
  const result = output as { content?: unknown; structuredContent?: unknown } | null;
  if (Array.isArray(result?.content)) {
    for (const item of result.content as { type?: unknown; text?: unknown }[]) {
      if (item?.type === 'text' && typeof item.text === 'string') add(item.text);
    }
  }
  // Iterative, depth-first: results were already checked against the nesting limit, and the stack stays flat.
  const stack: unknown[] = result?.structuredContent !== undefined ? [result.structuredContent] : [];
  while (stack.length > 0 && length < maxChars && visited < maxNodes) {
    const value = stack.pop();
    visited += 1;
    // Children beyond what is left of the node budget are never looked at, so a wide array costs nothing.
    const budget = maxNodes - visited - stack.length;
    if (typeof value === 'string') add(value);
    else if (Array.isArray(value)) {
      for (let i = Math.min(value.length, Math.max(0, budget)) - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value && typeof value === 'object') {
      const children: unknown[] = [];
      for (const key in value as Record<string, unknown>) {
        if (children.length >= budget) break;
        if (!Object.hasOwn(value, key)) continue;
        add(key);
        children.push((value as Record<string, unknown>)[key]);
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return parts.join('\n');
}
