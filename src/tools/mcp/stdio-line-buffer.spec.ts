import { StdioLineBuffer } from './stdio-line-buffer';

const message = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{}}`;

describe('StdioLineBuffer', () => {
  it('reads messages cut anywhere, several to a chunk, with CRLF or LF', () => {
    const buffer = new StdioLineBuffer(1000);
    const text = `${message(1)}\n${message(2)}\r\n${message(3)}\n`;
    buffer.append(Buffer.from(text.slice(0, 10)));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from(text.slice(10, 60)));
    buffer.append(Buffer.from(text.slice(60)));
    const ids: unknown[] = [];
    for (let read = buffer.readMessage(); read !== null; read = buffer.readMessage())
      ids.push((read as { id: number }).id);
    expect(ids).toEqual([1, 2, 3]);
  });

  it('refuses a line still unfinished past its cap with the SDK read buffer error, then reads on', () => {
    const buffer = new StdioLineBuffer(64);
    buffer.append(Buffer.from('x'.repeat(60)));
    expect(() => buffer.append(Buffer.from('x'.repeat(10)))).toThrow('ReadBuffer exceeded maximum size of 64 bytes');
    buffer.append(Buffer.from(`${message(4)}\n`));
    expect(buffer.readMessage()).toMatchObject({ id: 4 });
  });
});
