import type { IngestionErrorCode } from '../vector-store-files/vector-store-file.entity';

/** A file that cannot be indexed as it is: the vector store file fails with this code and message. */
export class IngestionError extends Error {
  constructor(
    readonly code: IngestionErrorCode,
    message: string,
  ) {
    super(message);
  }
}
