// zod, for code that needs it only now and then (a tool's schema, the trust
// file). In the `rt` executable scripts/build.mjs replaces this module with one
// that evaluates zod on the first call of zod(), not at start-up: zod's own
// start-up costs a one-shot command about 9 ms, and `rt open FILE` needs no
// schema (its arguments pass the tool's plainArgs check, src/tools/types.ts).
// Elsewhere (the library, the tests) it is zod, imported as usual.
import { z } from "zod";

export type Zod = typeof z;

export function zod(): Zod {
  return z;
}
