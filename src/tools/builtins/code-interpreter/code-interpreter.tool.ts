import type { ToolDefinition } from '../../tool-executor';

export const CODE_INTERPRETER_TOOL = 'code_interpreter';

/** Longest program accepted, in characters. */
export const MAX_CODE_CHARS = 100_000;

export const CODE_INTERPRETER_DEFINITION: ToolDefinition = {
  name: CODE_INTERPRETER_TOOL,
  description:
    'Runs Python 3 code in an isolated sandbox without network and returns what it printed. Use it for ' +
    'calculations, data processing and checking code. Each call starts from an empty working directory.',
  parameters: {
    type: 'object',
    properties: {
      code: { type: 'string', minLength: 1, maxLength: MAX_CODE_CHARS, description: 'The Python program to run.' },
    },
    required: ['code'],
    additionalProperties: false,
  },
};
