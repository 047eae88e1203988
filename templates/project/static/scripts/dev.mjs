/**
 * `npm run dev`: compiles on every change of src/ (`tsc --watch`, after one full build) and
 * restarts the service whenever the compiled code changes (`node --watch dist/server.js`). Logs
 * are readable on a terminal (pino-pretty). Ctrl-C stops both.
 */
import { spawn } from 'node:child_process';

const windows = process.platform === 'win32';
// `npm run` puts node_modules/.bin on the PATH.
const run = (command, args) => spawn(command, args, { stdio: 'inherit', shell: windows });

const build = run('tsc', ['-p', 'tsconfig.build.json']);
build.on('exit', (code) => {
  if (code !== 0) {
    console.error('npm run dev: the first build failed; fix the errors above and run it again');
    process.exit(code ?? 1);
  }
  const children = [
    run('tsc', ['-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput']),
    run(process.execPath, ['--watch', '--watch-preserve-output', 'dist/server.js']),
  ];
  const stop = () => {
    for (const child of children) child.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  for (const child of children) child.on('exit', () => stop());
});
