/** Process exit codes. */
export const ExitCode = {
  ok: 0,
  /** The input has errors, or `--check` found the output out of date. */
  failed: 1,
  /** Wrong usage of the command line. */
  usage: 2,
  /** A bug in svcgen. */
  internal: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
