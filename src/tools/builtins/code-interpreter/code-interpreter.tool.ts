import type { ToolDefinition } from '../../tool-executor';

export const CODE_INTERPRETER_TOOL = 'code_interpreter';

/** Longest program accepted, in characters. */
export const MAX_CODE_CHARS = 100_000;

/** Most files one call may name in `file_ids`. */
export const MAX_INPUT_FILES = 20;

export const CODE_INTERPRETER_DEFINITION: ToolDefinition = {
  name: CODE_INTERPRETER_TOOL,
  description:
    'Runs Python 3 code in an isolated sandbox without network and returns what it printed. Use it for ' +
    'calculations, data processing and checking code. Files named in file_ids are in /mnt/data; files the code ' +
    'writes to /mnt/data are returned as files. Each call starts from an empty sandbox, except the calls of one ' +
    'response, which share theirs.',
  parameters: {
    type: 'object',
    properties: {
      code: { type: 'string', minLength: 1, maxLength: MAX_CODE_CHARS, description: 'The Python program to run.' },
      file_ids: {
        type: 'array',
        items: { type: 'string', pattern: '^file-[A-Za-z0-9]{1,64}$' },
        maxItems: MAX_INPUT_FILES,
        description: 'Files API ids (file-...) of the caller, put in /mnt/data under their file names.',
      },
    },
    required: ['code'],
    additionalProperties: false,
  },
};
