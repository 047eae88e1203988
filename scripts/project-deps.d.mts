/** Types of project-deps.mjs. */
export function linkDependencies(dir: string): Promise<string>;
export function installedDependencies(): Promise<string>;
