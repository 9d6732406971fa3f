// The project files besides `.rt/config.json` that make rt run programs or
// steer the agent, and their pins: `.mcp.json` (MCP servers rt starts or
// connects to), `.rt/tools/**` (custom tool definitions and the scripts they
// run), `.rt/commands/**` and `.claude/commands/**` (custom commands and their
// allowed-tools), `.rt/agents/**` and `.claude/agents/**` (subagent types),
// `.claude/settings.json` and `.claude/settings.local.json` (Claude Code's
// settings, whose hooks rt runs) and `.claude/hooks/**` (where Claude Code's
// projects keep the scripts those hooks run).
//
// `rt trust` records a pin of each such file (the SHA-256 of its bytes) next
// to the digest of `.rt/config.json`. While every pin matches, the folder's
// extension files are read; once one file is added, edited or removed, none
// of them is read until the user trusts the folder again (config.ts decides,
// the loaders in src/extensions and src/mcpClient obey).
//
// Nothing here follows a symbolic link: a link is pinned as the link (its
// target's text), and a linked directory is not walked.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { TRUST_PIN_HASH_MAX_BYTES, TRUST_PIN_MAX_DEPTH, TRUST_PIN_MAX_FILES } from "./limits.js";

/** The pinned places, relative to the workspace root: a file, or a directory whose every file is pinned. */
export const PINNED_EXTENSION_PATHS: readonly string[] = [
  ".mcp.json",
  ".rt/tools",
  ".rt/commands",
  ".rt/agents",
  ".claude/commands",
  ".claude/agents",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/hooks",
];

/** Relative path (with /) → what it is: "sha256:HEX", "symlink:TARGET", "large:SIZE:MTIME", "dir", "special". */
export type ExtensionPins = Record<string, string>;

/** The key standing for every file past TRUST_PIN_MAX_FILES (its value counts them). */
export const TOO_MANY_KEY = "(more files)";

export interface PinChange {
  /** Relative path with / separators. */
  file: string;
  change: "added" | "edited" | "removed";
}

function pinOf(abs: string, st: fs.Stats): string {
  if (st.isSymbolicLink()) {
    let target = "";
    try {
      target = fs.readlinkSync(abs);
    } catch {
      /* gone meanwhile: pinned as a link without a target */
    }
    return `symlink:${target}`;
  }
  if (!st.isFile()) return "special";
  if (st.size > TRUST_PIN_HASH_MAX_BYTES) return `large:${st.size}:${Math.trunc(st.mtimeMs)}`;
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    return `unreadable:${(e as NodeJS.ErrnoException).code ?? "?"}`;
  }
  try {
    const hash = crypto.createHash("sha256");
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
    }
    return `sha256:${hash.digest("hex")}`;
  } catch (e) {
    return `unreadable:${(e as NodeJS.ErrnoException).code ?? "?"}`;
  } finally {
    fs.closeSync(fd);
  }
}

/** Every pinned file of `root` now (an empty record when it has none). Never throws. */
export function pinExtensionFiles(root: string): ExtensionPins {
  const pins: ExtensionPins = {};
  let count = 0;
  let extra = 0;
  const add = (rel: string, value: string) => {
    if (count >= TRUST_PIN_MAX_FILES) {
      extra++;
      return;
    }
    count++;
    pins[rel] = value;
  };
  const lstat = (abs: string): fs.Stats | undefined => {
    try {
      return fs.lstatSync(abs);
    } catch {
      return undefined;
    }
  };
  const walk = (rel: string, depth: number) => {
    const abs = path.join(root, ...rel.split("/"));
    const st = lstat(abs);
    if (!st) return;
    if (!st.isDirectory()) {
      add(rel, pinOf(abs, st));
      return;
    }
    if (depth > TRUST_PIN_MAX_DEPTH) {
      add(rel, "dir");
      return;
    }
    let names: string[];
    try {
      names = fs.readdirSync(abs).sort();
    } catch (e) {
      add(rel, `unreadable:${(e as NodeJS.ErrnoException).code ?? "?"}`);
      return;
    }
    for (const name of names) walk(`${rel}/${name}`, depth + 1);
  };
  const linkedParents = new Set<string>();
  for (const place of PINNED_EXTENSION_PATHS) {
    // A symlinked `.rt` or `.claude` would lead anywhere: it is pinned as a link and nothing below it is walked.
    const parent = place.includes("/") ? place.slice(0, place.indexOf("/")) : undefined;
    if (parent) {
      const pst = lstat(path.join(root, parent));
      if (!pst) continue;
      if (!pst.isDirectory()) {
        if (!linkedParents.has(parent)) add(parent, pinOf(path.join(root, parent), pst));
        linkedParents.add(parent);
        continue;
      }
    }
    walk(place, 0);
  }
  if (extra > 0) pins[TOO_MANY_KEY] = `count:${extra}`;
  return pins;
}

/** What differs between the pins recorded (`was`) and those of now, sorted by file. */
export function diffPins(was: ExtensionPins, now: ExtensionPins): PinChange[] {
  const out: PinChange[] = [];
  for (const file of Object.keys(now)) {
    if (!Object.hasOwn(was, file)) out.push({ file, change: "added" });
    else if (was[file] !== now[file]) out.push({ file, change: "edited" });
  }
  for (const file of Object.keys(was)) if (!Object.hasOwn(now, file)) out.push({ file, change: "removed" });
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
