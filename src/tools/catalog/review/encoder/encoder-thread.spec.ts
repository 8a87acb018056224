import { ENCODER_FEATURES } from './encoder-features';
import { EncoderThread } from './encoder-thread';

const TOOL = { name: 'time_now', texts: [{ text: 'Returns the current time in UTC.' }] };

describe('sentence encoder thread: a failure fails one tool', () => {
  it('gives up a tool past its time limit, ends that thread, and embeds the next tool in a new one', async () => {
    const limits = { heapMb: 256, toolTimeoutMs: 1 };
    const thread = new EncoderThread(limits);
    try {
      await expect(thread.features(TOOL)).rejects.toThrow('embedding took longer than');
      limits.toolTimeoutMs = 30_000;
      await expect(thread.features(TOOL)).resolves.toHaveLength(ENCODER_FEATURES);
    } finally {
      thread.close();
    }
  });

  it('fails a tool whose thread runs out of memory, and the process goes on', async () => {
    const thread = new EncoderThread({ heapMb: 8, toolTimeoutMs: 30_000 });
    try {
      await expect(thread.features(TOOL)).rejects.toThrow(/encoder thread (ran out of memory|failed|stopped)/);
    } finally {
      thread.close();
    }
  });
});
