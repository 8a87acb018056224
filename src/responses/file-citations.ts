import { outputOf } from '../tools/tool-executor';
import type { CallOutcome } from './tool-call-items';

/** A file a code_interpreter call wrote, stored with the Files API. */
export interface ProducedFile {
  file_id: string;
  filename: string;
}

/** The files of a code_interpreter call's result (`files: [{file_id, filename, bytes}]`). */
export function producedFiles(outcome: CallOutcome): ProducedFile[] {
  if (outcome.status !== 'completed') return [];
  const files = (outputOf(outcome.payload) as { files?: unknown } | null)?.files;
  if (!Array.isArray(files)) return [];
  return files.filter(
    (file): file is ProducedFile =>
      typeof (file as ProducedFile)?.file_id === 'string' && typeof (file as ProducedFile)?.filename === 'string',
  );
}

/**
 * OpenAI's `container_file_citation` annotations of a message: one per file, over the first place the text names
 * it (its file name), or an empty span at the end of the text when the text does not name it.
 */
export function fileCitations(text: string, files: ProducedFile[], containerId: string): Record<string, unknown>[] {
  return files.map((file) => {
    const at = text.indexOf(file.filename);
    const [start, end] = at >= 0 ? [at, at + file.filename.length] : [text.length, text.length];
    return {
      type: 'container_file_citation',
      container_id: containerId,
      file_id: file.file_id,
      filename: file.filename,
      start_index: start,
      end_index: end,
    };
  });
}
