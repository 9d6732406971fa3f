// Types for the part of bench/data.mjs the tests use (test/helpers.ts).
/** xorshift32: fast, deterministic, good enough for plausible-looking data. */
export function rng(seed: number): {
  int: (n: number) => number;
  pick: <T>(a: readonly T[]) => T;
  chance: (p: number) => boolean;
};
