/**
 * Limits that keep hostile or accidental inputs from exhausting memory or time. They are far above
 * what real APIs need (the TCK's Instagram API, with ~55 includes, is about 6,000 nodes).
 */
export const limits = {
  /** Largest single input file, in bytes. */
  maxFileBytes: 5 * 1024 * 1024,
  /** Largest total of all input files, in bytes. */
  maxTotalBytes: 20 * 1024 * 1024,
  /** Most nodes the document may have once aliases and includes are expanded. */
  maxNodes: 1_000_000,
  /** Deepest nesting of mappings and sequences. */
  maxDepth: 256,
  /** Most `!include`s resolved in one document (each occurrence counts). */
  maxIncludes: 10_000,
} as const;
