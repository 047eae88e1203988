/** A readonly model object while it is being filled in by a reader. */
export type Building<T> = { -readonly [K in keyof T]?: T[K] };
