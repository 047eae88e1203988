/**
 * `npm run dev`: compiles on every change of src/ (`tsc --watch`, after one full build) and
 * restarts the service whenever the compiled code changes (`node --watch dist/server.js`). Logs
 * are readable on a terminal (pino-pretty). Ctrl-C (or SIGTERM) stops everything.
 */
import { spawn } from 'node:child_process';

const windows = process.platform === 'win32';
// `npm run` puts node_modules/.bin on the PATH. Each child leads a process group of its own, so
// that stopping it stops what it started too (`tsc` is a launcher of the compiler's binary).
const run = (command, args) => spawn(command, args, { stdio: 'inherit', shell: windows, detached: !windows });

function stopAll(children, signal) {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    try {
      if (windows) child.kill(signal);
      else process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

const build = run('tsc', ['-p', 'tsconfig.build.json']);
build.on('exit', (code) => {
  if (code !== 0) {
    console.error('npm run dev: the first build failed; fix the errors above and run it again');
    process.exit(code ?? 1);
  }
  const children = [
    run('tsc', ['-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput']),
    run(process.execPath, ['--watch', '--watch-preserve-output', '--enable-source-maps', 'dist/server.js']),
  ];
  const stop = () => stopAll(children, 'SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // One of them ending (a crash of the compiler, say) ends the other: no half-working loop.
  for (const child of children) child.on('exit', stop);
});
