// Finds rt's own package directory at run time: the one holding `prompts/`.
// From src/ under tsx it is one level up; from the bundles in dist/ (or
// dist/chunks/) one or two. Walking up works for all of them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, "prompts", "system.md"))) return (cached = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`rt's prompts/ folder was not found above ${fileURLToPath(import.meta.url)}; the package is incomplete`);
    dir = parent;
  }
}
