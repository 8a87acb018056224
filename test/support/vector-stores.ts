import type OpenAI from 'openai';
import type { VectorStoreFile } from 'openai/resources/vector-stores/files';
import { waitFor } from './wait';

/**
 * Waits through the HTTP API until a vector store file leaves in_progress, checking all along that /healthz
 * answers: ingestion of a hostile file must never hold up the service.
 */
export async function settledFile(
  client: OpenAI,
  baseUrl: string,
  storeId: string,
  fileId: string,
  timeoutMs = 100_000,
): Promise<VectorStoreFile> {
  let file = await client.vectorStores.files.retrieve(fileId, { vector_store_id: storeId });
  await waitFor(
    async () => {
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      file = await client.vectorStores.files.retrieve(fileId, { vector_store_id: storeId });
      return file.status !== 'in_progress';
    },
    timeoutMs,
    `${fileId} to be indexed`,
  );
  return file;
}
