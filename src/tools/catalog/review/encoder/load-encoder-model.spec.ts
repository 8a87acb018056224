import { ENCODER_WIDTH } from './encoder-features';

/** The service's TypeScript library has no WebAssembly types: the one function replaced here, typed. */
const wasm = (globalThis as unknown as { WebAssembly: { instantiate: (...args: unknown[]) => Promise<unknown> } })
  .WebAssembly;

describe('loading the sentence encoder', () => {
  const instantiate = wasm.instantiate;
  afterEach(() => {
    wasm.instantiate = instantiate;
  });

  it('waits for a slow WebAssembly backend before the weights become tensors', async () => {
    // A busy machine: compiling the backend takes longer than reading the model's weights from disk.
    let compiled = 0;
    wasm.instantiate = (...args) =>
      new Promise((resolve) => setTimeout(resolve, 1_500)).then(() => {
        compiled++;
        return instantiate(...args);
      });
    // Loaded only now: the backend starts on first use, which must be this load, under the slow compiler.
    const { loadEncoderModel } = await import('./load-encoder-model');
    const model = await loadEncoderModel();
    expect(compiled).toBe(1);
    const [embedding] = await model.embed(['read a file from the workspace']);
    expect(embedding).toHaveLength(ENCODER_WIDTH);
    expect(embedding.some((value) => value !== 0)).toBe(true);
  });
});
