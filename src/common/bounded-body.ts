/**
 * A fetch response's body as UTF-8 text, or null once it exceeds `limit` bytes, whatever Content-Length
 * claims: reading stops at the limit, so a hostile server cannot make us buffer more. A refused body is
 * cancelled to release its socket; failing to cancel changes nothing for the caller, who refuses it anyway.
 */
export async function readBoundedText(response: Response, limit: number): Promise<string | null> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
