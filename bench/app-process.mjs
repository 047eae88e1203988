// A contender of the in-process benchmarks in a process of its own (inject-app.mjs), asked one
// thing at a time. All are pinned to one core where taskset exists: this VM's two cores differ, and
// a process stays on the one it starts on (the same build measured 108 against 156 µs a GET on two).
import { execFileSync, fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Whether taskset can pin the contenders to one core (util-linux; not on every machine). */
export const PINNED = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();

/**
 * The app `options` describe ({ kind: 'generated' | 'hand-written' | 'contract', project, modules,
 * database, env }) built in a process of its own: `ask(message)` answers what inject-app.mjs
 * answers it; `close()` ends the process.
 */
export async function appProcess(options) {
  const script = fileURLToPath(new URL('inject-app.mjs', import.meta.url));
  const argument = JSON.stringify(options);
  const child = PINNED
    ? spawn('taskset', ['-c', '0', process.execPath, script, argument], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      })
    : fork(script, [argument]);
  let pending;
  const next = () => new Promise((resolve, reject) => (pending = { resolve, reject }));
  child.on('message', (message) =>
    message.error ? pending.reject(new Error(message.error)) : pending.resolve(message),
  );
  child.on('exit', (code) => pending.reject(new Error(`${options.kind} exited (${code})`)));
  await next(); // ready
  return {
    ask: (message) => {
      const answer = next();
      child.send(message);
      return answer;
    },
    close: () => child.send({ command: 'close' }),
  };
}
