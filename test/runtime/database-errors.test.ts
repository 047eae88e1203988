/**
 * Which database errors are an outage (503, Retry-After) and which a failure of the statement:
 * a protocol violation (a statement of 65,536 parameters) is no outage, and retrying never mends it.
 */
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../runtime/src/lib/database.js';

describe('database errors', () => {
  it.each([
    ['08006', true], // connection_failure
    ['08001', true], // unable to connect
    ['57P01', true], // admin_shutdown
    ['08P01', false], // protocol_violation
    ['42601', false], // syntax_error
  ])('PostgreSQL %s is an outage: %s, wrapped by a repository too', (code, outage) => {
    expect(isDatabaseUnavailable({ code })).toBe(outage);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: { code } }))).toBe(outage);
  });

  // A probe's 500s while its database was closed to connections (during maintenance).
  it('a database closed to connections is an outage; another 55000 is not', () => {
    const closed = { code: '55000', message: 'database "shop" is not currently accepting connections' };
    expect(isDatabaseUnavailable(closed)).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: closed }))).toBe(true);
    expect(
      isDatabaseUnavailable({ code: '55000', message: 'currval of sequence "s" is not yet defined in this session' }),
    ).toBe(false);
  });
});
