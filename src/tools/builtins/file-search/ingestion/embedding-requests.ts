/** One `/v1/embeddings` request, its JSON body built ahead: `count` texts in, `count` vectors expected back. */
export interface EmbeddingRequest {
  count: number;
  body: string;
}

/** What shapes the requests: the model named and how many texts go in one request. */
export interface EmbeddingRequestShape {
  model: string;
  batchSize: number;
}

/**
 * The request bodies for `texts`, in order, `batchSize` texts each. Pure and cheap to import, so that the
 * document thread builds the bodies of a document's chunks (JSON-encoding megabytes of untrusted text is
 * work for that thread, not the event loop) and the client builds those of a search query the same way.
 */
export function buildEmbeddingRequests(texts: string[], shape: EmbeddingRequestShape): EmbeddingRequest[] {
  const requests: EmbeddingRequest[] = [];
  for (let i = 0; i < texts.length; i += shape.batchSize) {
    const input = texts.slice(i, i + shape.batchSize);
    requests.push({
      count: input.length,
      body: JSON.stringify({ input, ...(shape.model ? { model: shape.model } : {}), encoding_format: 'float' }),
    });
  }
  return requests;
}
