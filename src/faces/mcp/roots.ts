// MCP roots: a client may tell the server which directories it works in. One
// rt server serves one workspace root (its line IDs, views and journal live in
// that root's .rt/), so rt takes the client's first root as the workspace root
// and refuses the others: a tool call naming a path under another offered root
// gets a tool error saying so and what to do (start a second server for it),
// instead of the generic "outside the workspace root" message.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isWithin } from "../../workspace/paths.js";

export interface ClientRoot {
  uri: string;
  name?: string;
}

/** What the client's roots mean for this server. */
export type RootChoice =
  /** Serve this directory; the other roots are refused. */
  | { kind: "root"; dir: string; refused: string[] }
  /** The client offered roots, but the first one cannot be served. */
  | { kind: "unusable"; error: string; refused: string[] }
  /** No roots offered: serve --root. */
  | { kind: "none" };

/** A file:// URI as a real directory path, or why it is not one. */
export function rootDirectory(uri: string): { dir: string } | { error: string } {
  let p: string;
  try {
    if (!uri.startsWith("file:")) return { error: `${uri} is not a file:// URI` };
    p = fileURLToPath(uri);
  } catch (e) {
    return { error: `${uri} is not a valid file:// URI (${(e as Error).message})` };
  }
  try {
    const real = fs.realpathSync(p);
    if (!fs.statSync(real).isDirectory()) return { error: `${p} is not a directory` };
    return { dir: real };
  } catch {
    return { error: `${p} does not exist` };
  }
}

export function chooseRoot(roots: readonly ClientRoot[]): RootChoice {
  if (roots.length === 0) return { kind: "none" };
  // Refused roots are compared with real paths, like the served one.
  const refused = roots.slice(1).flatMap((r) => {
    const d = rootDirectory(r.uri);
    return "dir" in d ? [d.dir] : [];
  });
  const first = rootDirectory(roots[0].uri);
  if ("error" in first) {
    return {
      kind: "unusable",
      error: `the client's first root cannot be served: ${first.error}. rt serves the first root the client offers; fix that root in the client, or offer no roots and start rt mcp with --root DIR`,
      refused,
    };
  }
  return { kind: "root", dir: first.dir, refused: refused.filter((d) => d !== first.dir) };
}

/** Argument names that hold paths, at any depth of a call's arguments. */
export const PATH_ARGUMENTS: readonly string[] = ["path", "working_dir"];

function pathValues(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) pathValues(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (PATH_ARGUMENTS.includes(k) && typeof v === "string") out.push(v);
      else pathValues(v, out);
    }
  }
  return out;
}

/**
 * The refusal for a call whose path argument lies under a refused root (and not
 * under the served one, which may contain it), or undefined.
 */
export function refusedRootPath(args: unknown, served: string, refused: readonly string[]): string | undefined {
  if (refused.length === 0) return undefined;
  for (const p of pathValues(args)) {
    if (p.includes("\0")) continue; // the workspace's own check explains this one
    const abs = path.resolve(served, p);
    if (isWithin(served, abs)) continue;
    const other = refused.find((r) => isWithin(r, abs));
    if (other) {
      return `${p}: this path is under ${other}, a root the client offered that this rt server does not serve. One rt mcp server serves one root: the client's first, ${served}. Use a path under ${served}, or add another server for that root (rt mcp --root ${other}).`;
    }
  }
  return undefined;
}
