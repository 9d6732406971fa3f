// Path resolution against the workspace root. Every path a tool touches goes
// through resolveInside(); the checks follow the lessons of the reference MCP
// filesystem server's CVEs: compare whole path segments (never string prefixes),
// resolve symlinks of the file and of every parent, and check paths that do not
// exist yet through their nearest existing ancestor.
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../base/errors.js";

export interface ResolvedPath {
  /** Absolute, symlink-free path on disk (for files that do not exist yet: the real parent plus the rest). */
  abs: string;
  /** Path relative to the root, with forward slashes; "." for the root itself. */
  rel: string;
  /** Whether something exists at that path. */
  exists: boolean;
}

/** True when `p` is `root` or lies below it, comparing whole segments. */
export function isWithin(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return p.startsWith(prefix);
}

export function toRel(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

/**
 * Resolve `input` (relative to `root`, or absolute) to a real path inside `root`.
 * `root` must already be a real path (no symlinks). Throws ToolError with an
 * actionable message when the path is empty, holds a NUL byte, or leads outside.
 */
export function resolveInside(root: string, input: string): ResolvedPath {
  if (typeof input !== "string" || input.length === 0) {
    throw new ToolError("path is empty: give a path relative to the workspace root, e.g. src/app.ts");
  }
  if (input.includes("\0")) {
    throw new ToolError("path contains a NUL byte: paths must be plain text");
  }
  const lexical = path.resolve(root, input);
  if (!isWithin(root, lexical)) {
    throw outside(root, input, lexical);
  }
  // Walk up to the nearest existing ancestor, then realpath it.
  const rest: string[] = [];
  let probe = lexical;
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(probe);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" && (e as NodeJS.ErrnoException).code !== "ENOTDIR") throw e;
    }
    if (st) {
      let real: string;
      try {
        real = fs.realpathSync(probe);
      } catch {
        // A dangling symlink: following it on write could create a file anywhere.
        let target: string;
        try {
          target = fs.readlinkSync(probe);
        } catch {
          // Not a symlink any more: something on the way was replaced while rt looked at it.
          throw new ToolError(
            `${input}: changed while rt was resolving it (a directory or symbolic link on the way was replaced); try again`,
          );
        }
        throw new ToolError(`${input}: is a symbolic link to ${target}, which does not exist; refusing to follow it`);
      }
      const abs = rest.length ? path.join(real, ...rest.reverse()) : real;
      if (!isWithin(root, abs)) {
        throw outside(root, input, abs, true);
      }
      return { abs, rel: toRel(root, abs), exists: rest.length === 0 };
    }
    const parent = path.dirname(probe);
    if (parent === probe) throw outside(root, input, lexical);
    rest.push(path.basename(probe));
    probe = parent;
  }
}

function outside(root: string, input: string, resolved: string, viaLink = false): ToolError {
  const how = viaLink ? ` (a symbolic link leads to ${resolved})` : "";
  return new ToolError(
    `${input}: path is outside the workspace root ${root}${how}; only paths inside the root are allowed`,
  );
}
