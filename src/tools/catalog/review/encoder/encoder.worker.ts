import { parentPort } from 'node:worker_threads';
import { type EncodedTool, encoderFeatures } from './encoder-features';
import { loadEncoderModel } from './load-encoder-model';

/** One tool to embed. */
export interface EncoderRequest {
  id: number;
  tool: EncodedTool;
}

export type EncoderReply =
  | { type: 'ready' }
  | { type: 'features'; id: number; features: Float32Array }
  | { type: 'failed'; id: number; message: string };

/**
 * Entry point of the sentence encoder's thread (encoder-thread.ts): loads Universal Sentence Encoder-lite
 * (load-encoder-model.ts), says so, then embeds one tool per request.
 * A definition's texts are hostile: they are read here, never on the event loop, within the thread's limits.
 */
async function main(): Promise<void> {
  const port = parentPort!;
  const model = await loadEncoderModel();
  port.on('message', ({ id, tool }: EncoderRequest) => {
    encoderFeatures(model, tool).then(
      (features) =>
        port.postMessage({ type: 'features', id, features } satisfies EncoderReply, [features.buffer as ArrayBuffer]),
      (error: Error) => port.postMessage({ type: 'failed', id, message: error.message } satisfies EncoderReply),
    );
  });
  port.postMessage({ type: 'ready' } satisfies EncoderReply);
}

void main();
