// Finds rt's own package directory at run time: the one holding `prompts/`.
// From src/ under tsx it is one level up; from the bundles in dist/ (or
// dist/chunks/) one or two. Walking up works for all of them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  // The CLI bundle defines import.meta.dirname as its own directory (no URL to make and parse:
  // rt grep asks on every run, for ripgrep's path); ES modules on Node before 20.11 lack it.
  let dir = (import.meta.dirname as string | undefined) ?? path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, "prompts", "system.md"))) return (cached = dir);
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(
        `rt's prompts/ folder was not found above ${fileURLToPath(import.meta.url)}; the package is incomplete`,
      );
    dir = parent;
  }
}
