/**
 * A command used wrongly: arguments, options, a file that is not a program, an unknown run id. Every
 * command reports it as one line and exits with `EXIT.usage` (exit-codes.ts), never with a stack trace.
 */
export class UsageError extends Error {}
