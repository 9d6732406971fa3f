// Puts `rt` on the PATH of the agent's shell commands: text mode's bash
// blocks are mostly `rt open`, `rt grep`, `rt edit`... A tiny shim runs this
// very rt (the same node, the same dist/cli.js), so the model's commands use
// the version of rt that is running it, whatever is (or is not) installed
// globally.
//
// The shim is rt's own machinery, so it never lives in the workspace (a
// repository could ship a `.rt/bin/rt`, or a `.rt/bin/git` that would come
// first on PATH). It lives in a private per-user directory:
// `$XDG_CACHE_HOME/rt/bin/<tag>/` (else `~/.cache/rt/bin/<tag>/`), where
// <tag> names the node and cli.js it runs (two installs never share a shim).
// Those directories are created mode 0700 through the confined writer and are
// used only when they belong to the user and nobody else can enter them, and
// every directory above them is the user's or root's and nobody else can rename
// entries in it (see replaceableBy); the cache directory must not lie inside
// the workspace. `~/.cache` stays visible
// inside the read-only sandbox (which replaces /tmp and /run), so sandboxed
// commands find `rt` too. When that directory cannot be used, a fresh private
// directory under the system's temporary directory is used instead (hidden
// inside the sandbox: there, `rt` is then not found, rather than anything else).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { packageRoot } from "../base/packageRoot.js";
import { Workspace, type Profile } from "../workspace/workspace.js";
import { ConfinedFs, confinedAt } from "../workspace/confinedFs.js";
import { hash64 } from "../workspace/fingerprint.js";
import { isWithin } from "../workspace/paths.js";
import { safeCommandPath } from "../workspace/commandPath.js";
import { shellQuote } from "../base/text.js";

/** The user's cache directory: $XDG_CACHE_HOME (when absolute), else ~/.cache. */
export function userCacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), ".cache");
}

/** Why a directory rt made for itself cannot be trusted (another owner, others may enter it), or undefined. */
function notPrivate(st: fs.Stats, where: string): string | undefined {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return `${where} belongs to another user (uid ${st.uid})`;
  if (st.mode & 0o077) return `${where} is open to other users (mode ${(st.mode & 0o777).toString(8)}; rt needs 700)`;
  return undefined;
}

/**
 * Why `dir` could be replaced by another user, or undefined: some directory
 * from it up to `/` belongs to someone other than this user or root, or lets
 * others rename its entries (writable by group or others without the sticky
 * bit). The shim's directory is looked up again by every command through the
 * PATH, so whoever can rename any directory above it (a cache under a shared
 * scratch directory) could put their own `rt` and `git` there later.
 */
export function replaceableBy(dir: string): string | undefined {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid === undefined) return undefined;
  for (let d = dir; ; d = path.dirname(d)) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(d);
    } catch (e) {
      return `${d}: ${(e as Error).message}`;
    }
    if (!st.isDirectory()) return `${d} is not a directory (a symbolic link?)`;
    if (st.uid !== uid && st.uid !== 0) return `${d} belongs to another user (uid ${st.uid})`;
    if (st.mode & 0o022 && !(st.mode & 0o1000))
      return `${d} is writable by other users (mode ${(st.mode & 0o777).toString(8)}, no sticky bit): they could replace what is in it`;
    if (path.dirname(d) === d) return undefined;
  }
}

/**
 * Creates (or checks) `parts` below `files`, each directory mode 0700 and
 * private, and the shim in the last one; returns that directory (refused
 * when a directory above it could be replaced by another user).
 */
function writeShim(files: ConfinedFs, parts: string[], script: string): string {
  for (let i = 1; i <= parts.length; i++) {
    const dir = files.openDir(parts.slice(0, i), { create: true, mode: 0o700 });
    try {
      const why = notPrivate(dir.stat(), files.abs(parts.slice(0, i)));
      if (why) throw new Error(why);
    } finally {
      dir.close();
    }
  }
  const file = [...parts, "rt"];
  const current = files.readFileStat(file, { maxBytes: 64 * 1024 });
  const fresh =
    current &&
    current.bytes.toString("utf8") === script &&
    !notPrivate(current.stat, "the shim") &&
    current.stat.mode & 0o100;
  if (!fresh) files.writeAtomic(file, script, { mode: 0o700, fsync: false });
  const dir = files.abs(parts);
  const why = replaceableBy(dir);
  if (why) throw new Error(why);
  return dir;
}

/** Creates (or refreshes) the shim and returns the directory to put first on PATH. */
export function ensureRtShim(ws: Workspace): string {
  const cli = path.join(packageRoot(), "dist", "cli.js");
  const script = `#!/bin/sh\n# rt for the agent's commands (written by rt; safe to delete)\nexec ${shellQuote(process.execPath)} ${shellQuote(cli)} "$@"\n`;
  const tag = hash64(Buffer.from(script, "utf8"));
  const cache = userCacheDir(ws.env);
  try {
    const files = confinedAt(cache);
    if (isWithin(ws.root, path.resolve(cache)) || isWithin(ws.root, files.abs()))
      throw new Error(`${cache} is inside the workspace`);
    // Nothing is created under a directory someone else could replace (checked again on the whole path below).
    const above = replaceableBy(files.base);
    if (above) throw new Error(above);
    return writeShim(files, ["rt", "bin", tag], script);
  } catch {
    // A private directory of this process's own under the temporary directory.
    const tmp = new ConfinedFs(fs.realpathSync(os.tmpdir()));
    for (let attempt = 0; ; attempt++) {
      const name = `rt-bin-${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        if (tmp.lstat(name)) continue;
        return writeShim(tmp, [name], script);
      } catch (e) {
        if (attempt >= 10) throw e;
      }
    }
  }
}

/**
 * The workspace the agent's tools run in: the same root, profile and options,
 * with `rt` first on PATH (from the private shim directory; no repository
 * directory ahead of the system's, see workspace/commandPath.ts), RT_ROOT
 * pinned to the root (so `rt` paths mean the same thing as the tools' paths)
 * and RT_PROFILE passed down (so a command cannot escape the profile by calling rt).
 */
export function agentWorkspace(ws: Workspace): Workspace {
  const bin = ensureRtShim(ws);
  const env = {
    ...ws.env,
    PATH: safeCommandPath(ws.env.PATH, ws.root, [bin]),
    RT_ROOT: ws.root,
    RT_PROFILE: ws.profile,
  };
  return new Workspace({ ...ws.options, root: ws.root, profile: ws.profile, env });
}

/** The same workspace under another profile (plan mode runs its commands as safe-read-only). */
export function withProfile(ws: Workspace, profile: Profile): Workspace {
  if (ws.profile === profile) return ws;
  return new Workspace({ ...ws.options, root: ws.root, profile, env: { ...ws.env, RT_PROFILE: profile } });
}
