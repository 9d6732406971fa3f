// The PATH of the commands rt runs (the bash tool, the agent's text-mode
// blocks). Names on it are looked up in order, so whoever owns the first
// directory that has a `git` decides what `git status` runs. A repository must
// never be that owner: entries that are empty or relative (`.`, `bin`,
// `node_modules/.bin`) mean a directory of the current one, which is inside
// the repository when commands run there, so they are dropped; absolute
// entries inside the workspace root (or leading into it through a symlink)
// are moved after every other entry, so a system program always wins over a
// repository's file of the same name while a tool only found there still
// runs. rt's own `rt` shim is put in front by the agent (agent/rtOnPath.ts),
// from a private per-user directory outside the workspace.
import fs from "node:fs";
import path from "node:path";
import { isWithin } from "./paths.js";

/** The PATH used when the environment has none (the usual system default). */
export const DEFAULT_COMMAND_PATH = "/usr/local/bin:/usr/bin:/bin";

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** `pathValue` rearranged so that no repository-controlled directory comes before a system one (see above). */
export function safeCommandPath(pathValue: string | undefined, root: string, front: string[] = []): string {
  const outside: string[] = [];
  const inside: string[] = [];
  const seen = new Set<string>();
  for (const entry of [...front, ...(pathValue ?? DEFAULT_COMMAND_PATH).split(path.delimiter)]) {
    if (!entry || !path.isAbsolute(entry) || seen.has(entry)) continue;
    seen.add(entry);
    const lexical = path.resolve(entry);
    if (!front.includes(entry) && (isWithin(root, lexical) || isWithin(root, realOr(lexical)))) inside.push(entry);
    else outside.push(entry);
  }
  return [...outside, ...inside].join(path.delimiter);
}
