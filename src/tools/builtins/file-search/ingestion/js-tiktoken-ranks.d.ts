// js-tiktoken publishes its rank files through package "exports", which this project's module resolution
// (node10) does not read; the runtime (Node) does. This states the one export used.
declare module 'js-tiktoken/ranks/cl100k_base' {
  import type { TiktokenBPE } from 'js-tiktoken/lite';
  const ranks: TiktokenBPE;
  export default ranks;
}
