import { z } from 'zod';
import { flag } from '../../../config/config.schema';

/** `builtins.code_interpreter`: only whether it is on; its limits are the sandbox's (`sandbox.limits`). */
export const codeInterpreterConfigSchema = z.object({ enabled: flag().default(false) }).strict();
