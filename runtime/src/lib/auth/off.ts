/**
 * A service whose API declares logins and x-ACLs, started with `auth` off: every caller is then
 * served as an admin (the open policy), so anyone who reaches it may read, change and delete
 * everything, the users and their groups too. Off by default is for a developer's own machine: on
 * an address other machines reach (the Dockerfile's 0.0.0.0), the service refuses to start unless
 * `auth = false` is said on purpose; and it says so at every start.
 */
import { isIP } from 'node:net';
import { ConfigError, envName, type Config } from '../config.js';

export function authOffWarnings(config: Config): string[] {
  if (!config.authChosen && !isLoopback(config.host))
    throw new ConfigError(
      `auth is off (the default) and the service would listen on ${config.host}, where other machines reach it: ` +
        `the API's x-ACLs apply only with auth = true, so anyone could read, change and delete everything, as an admin. ` +
        `Set auth = true and a ticket secret (service.ini, or ${envName('auth')}=true and its secret's variable), ` +
        `or auth = false (${envName('auth')}=false) to serve it open on purpose`,
    );
  return [
    `auth is off: the API's x-ACLs and field privacy are not applied, and every caller may read, change and delete everything, as an admin (auth = true in service.ini turns them on)`,
  ];
}

/** `127.0.0.1` (any of 127/8), `::1`, `localhost`: no other machine reaches the service there. */
export function isLoopback(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const v4 = name.startsWith('::ffff:') ? name.slice(7) : name;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return isIP(name) === 6 && /^(?:0{0,4}:){7}0{0,3}1$|^::1$/.test(name);
}
