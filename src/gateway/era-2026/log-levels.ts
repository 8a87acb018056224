/** The syslog severities of notifications/message (schema.ts LoggingLevel), least severe first. */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type LoggingLevel = (typeof LEVELS)[number];

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** Whether a message of `level` reaches a client that asked for `threshold` and above. */
export function reaches(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(threshold);
}
