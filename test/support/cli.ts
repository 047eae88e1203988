import { main } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/output.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in process (no colours), as a user would in `cwd`; `terminal`: as if stderr were one. */
export async function runCli(argv: readonly string[], cwd: string, { terminal = false } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd,
    color: false,
    progress: terminal,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
