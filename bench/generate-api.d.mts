/** Writes a synthetic API of `count` resources into `dir`; returns the path of its RAML file. */
export function generateApi(dir: string, count: number): string;
