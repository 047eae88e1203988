// Can a caller tell an unknown user from a wrong password by the time a failed login takes? The
// generated ramses-example (auth on) verifies an unknown user's password against a dummy argon2id
// hash, so both failures cost one verify. This measures 50 logins of each kind, one at a time and
// interleaved (wrong password, unknown user, …) so that the machine's noise hits both alike, each
// wrong password for a different registered user (the login throttle counts per login name).
// Target: median(wrong password) / median(unknown user) within 0.8–1.25, and the same answer.
import { mkdirSync, rmSync } from 'node:fs';
import { median, table } from './lib.mjs';
import { build, register, start, work } from './login.mjs';

const ROUNDS = 50;

export async function run() {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const server = await start(await build());
  try {
    await register(server.url, ROUNDS);
    const times = { 'wrong password': [], 'unknown user': [] };
    const answers = new Set();
    for (let i = 1; i <= ROUNDS; i++) {
      for (const [kind, login] of [
        ['wrong password', `u${i}`],
        ['unknown user', `nobody${i}`],
      ]) {
        const started = performance.now();
        const response = await fetch(`${server.url}/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ login, password: 'not the password' }),
        });
        const { timestamp: _timestamp, ...body } = await response.json();
        times[kind].push(performance.now() - started);
        answers.add(`${response.status} ${JSON.stringify(body)}`);
      }
    }
    const wrong = median(times['wrong password']);
    const unknown = median(times['unknown user']);
    const ratio = wrong / unknown;
    const rows = [
      ['', 'median', 'min', 'max'],
      ...Object.entries(times).map(([kind, t]) => [
        kind,
        `${median(t).toFixed(1)} ms`,
        `${Math.min(...t).toFixed(1)} ms`,
        `${Math.max(...t).toFixed(1)} ms`,
      ]),
    ];
    return {
      title: 'Failed logins: wrong password vs. unknown user (ramses-example, auth on)',
      text: table(rows),
      summary:
        `${ROUNDS} + ${ROUNDS} logins, one at a time, interleaved. Median ratio wrong/unknown ${ratio.toFixed(2)} — target 0.8–1.25: ${ratio >= 0.8 && ratio <= 1.25 ? 'met' : 'NOT met'}. ` +
        `Distinct answers (status and body but the timestamp): ${answers.size}${answers.size === 1 ? `, ${[...answers][0]}` : ` — NOT the same: ${[...answers].join(' | ')}`}.`,
    };
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
