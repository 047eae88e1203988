/**
 * A contract still in its initial development promises its clients nothing yet: semantic
 * versioning's major version zero ("anything MAY change at any time"). Its breaking changes are
 * listed, not refused, until the API's `version` reaches 1: the version of the contract the
 * clients were given (the out-dir's openapi.json, or diff's older side) decides.
 */

/** `v0`, `0.3`, `V0.3.1-beta`: the version of a contract, when it is a pre-release. */
export function preReleaseVersion(document: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const info = document?.['info'];
  const version = typeof info === 'object' && info !== null ? (info as Record<string, unknown>)['version'] : undefined;
  if (typeof version !== 'string') return undefined;
  return /^v?0(?:[.+-]|$)/i.test(version.trim()) ? version.trim() : undefined;
}

/** Why its breaking changes are written, said where they are listed. */
export function preReleaseNote(version: string): string {
  return `version ${version} of the contract is a pre-release: what breaks its clients is not refused before version 1`;
}
