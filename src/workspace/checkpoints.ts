// Checkpoints of the working tree: before a user turn the agent records the
// state of every file under the root (tracked by the user's git or not,
// `.gitignore` honoured), so that a rewind can put the bytes back whatever
// changed them: rt's own edits, `bash` commands, custom tools.
//
// The store is a shadow git repository of rt's own, outside the work tree:
// `$XDG_CACHE_HOME/rt/checkpoints/<hash of the root>/` (else ~/.cache/...),
// a bare repository used with `--git-dir=<shadow> --work-tree=<root>`, as
// OpenCode and Gemini CLI do. Its index (in the shadow directory) keeps the
// stat data of every file, so a checkpoint of an unchanged tree only stats
// the files (`git add -A`, then `git write-tree`, which reuses the cached
// trees); a file's content is stored once by its hash whatever its size or
// kind (binary and large files included), and a checkpoint is one tree id.
//
// The user's own repository is never touched: the shadow's git directory is
// given on the command line, the environment is rt's own (no GIT_DIR,
// GIT_INDEX_FILE, GIT_WORK_TREE or other GIT_* of the caller, no system or
// global configuration), and git ignores any `.git` below the work tree.
// The work tree is untrusted input: its `.gitattributes` could name a filter
// driver, a text conversion or an encoding; the shadow's `info/attributes`
// (read last, so it wins) unsets all of them for every path, the configuration
// a driver needs exists nowhere git looks, hooks point at /dev/null and the
// fsmonitor is off. So git stores and restores bytes exactly, and runs nothing.
//
// Writing outside the root is allowed here, and only here and in the places
// the confined writer already allows (the state directory, the user's cache):
// git itself writes the shadow directory (objects, its index) in the user's
// private cache, created 0700 through confinedAt; files restored into the
// root are written by the workspace's one writer (ConfinedFs), like any edit.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { spawnSync } from "node:child_process";
import { findSystemProgram } from "../base/systemProgram.js";
import { confinedAt, type ConfinedFs } from "./confinedFs.js";
import {
  CHECKPOINT_GIT_MAX_BYTES,
  CHECKPOINT_GIT_TIMEOUT_MS,
  CHECKPOINT_KEEP_RECENT,
  CHECKPOINT_MAX_AGE_DAYS,
  CHECKPOINT_MAX_COUNT,
  CHECKPOINT_MAX_STORE_BYTES,
  CHECKPOINT_PRUNE_GRACE_S,
} from "../base/limits.js";

/** Unsets, for every path, each attribute through which a work tree's .gitattributes could change bytes or run a program. */
const SHADOW_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge -crlf\n";

/** The `-c` settings every shadow git command gets (read after any configuration file, so they win). */
const SHADOW_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.quotePath=false",
  "core.untrackedCache=true",
  "core.preloadIndex=true",
  "core.pager=cat",
  "core.compression=1",
  "gc.auto=0",
  "maintenance.auto=false",
  "protocol.allow=never",
  "advice.addEmbeddedRepo=false",
  "user.name=rt",
  "user.email=rt@localhost",
];

/** Where the shadow repository names its checkpoints: one ref per tree. */
const CHECKPOINT_REFS = "refs/rt";

/** The limits Checkpoints.prune applies (limits.ts gives the defaults). */
export interface PruneLimits {
  maxAgeDays: number;
  maxCount: number;
  maxBytes: number;
  keepRecent: number;
  /** Seconds an object no checkpoint holds is kept anyway (git prune --expire). */
  graceS: number;
}

const DEFAULT_PRUNE_LIMITS: PruneLimits = {
  maxAgeDays: CHECKPOINT_MAX_AGE_DAYS,
  maxCount: CHECKPOINT_MAX_COUNT,
  maxBytes: CHECKPOINT_MAX_STORE_BYTES,
  keepRecent: CHECKPOINT_KEEP_RECENT,
  graceS: CHECKPOINT_PRUNE_GRACE_S,
};

/** One path that differs between two checkpoints (or a checkpoint and the tree now). */
export interface TreeChange {
  /** Relative to the root, with `/`. */
  path: string;
  /** A added, D deleted, M modified, T type changed (from the first tree to the second). */
  status: "A" | "D" | "M" | "T";
  /** Mode and blob id in the second tree (absent when deleted there). */
  mode?: string;
  blob?: string;
}

export interface RestoreResult {
  /** Files written back. */
  written: string[];
  /** Files removed (they did not exist at the checkpoint). */
  removed: string[];
  /** Paths left alone: asked to be kept, or not a plain file (a symlink, a submodule), or refused; with why. */
  skipped: Array<{ path: string; why: string }>;
}

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CheckpointError";
  }
}

/** The user's cache directory: $XDG_CACHE_HOME (when absolute), else ~/.cache. */
function cacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), ".cache");
}

/** The shadow repository's directory for a root (its real path). */
export function shadowDirFor(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const tag = crypto.createHash("sha256").update(root).digest("hex").slice(0, 16);
  const name = `${
    path
      .basename(root)
      .replace(/[^\w.-]/g, "_")
      .slice(0, 40) || "root"
  }-${tag}`;
  return path.join(cacheDir(env), "rt", "checkpoints", name);
}

/** The checkpoints of one work tree. */
export class Checkpoints {
  private constructor(
    readonly root: string,
    /** The shadow git directory. */
    readonly dir: string,
    private readonly git: string,
    private readonly home: string,
  ) {}

  /**
   * The store for `root` (its real path), created on first use; a
   * CheckpointError says why there is none (no git on the system, the cache
   * directory cannot be made private).
   */
  static open(root: string, env: NodeJS.ProcessEnv = process.env): Checkpoints {
    const found = findSystemProgram("git", { root, purpose: "checkpoints" });
    if (found.path === undefined) throw new CheckpointError(`checkpoints need git: ${found.reason}`);
    const dir = shadowDirFor(root, env);
    const cache = cacheDir(env);
    const rel = path.relative(cache, dir).split(path.sep);
    let store: ConfinedFs;
    try {
      store = confinedAt(cache);
      store.mkdirs(rel, 0o700);
    } catch (e) {
      throw new CheckpointError(`cannot make the checkpoint store ${dir}: ${(e as Error).message}`);
    }
    const cp = new Checkpoints(root, dir, found.path, env.HOME || os.homedir());
    if (!fs.existsSync(path.join(dir, "HEAD"))) {
      // No template: nothing (sample hooks included) is copied in; the attributes file is written below.
      const init = cp.run(["init", "--bare", "--quiet", "--template=", dir], { noTree: true });
      if (init.status !== 0)
        throw new CheckpointError(`git init of the checkpoint store ${dir} failed: ${init.stderr}`);
    }
    const attributes = store.readFile([...rel, "info", "attributes"]);
    if (attributes?.toString("utf8") !== SHADOW_ATTRIBUTES)
      store.writeAtomic([...rel, "info", "attributes"], SHADOW_ATTRIBUTES, { mkdirs: true, mode: 0o600 });
    return cp;
  }

  private env(): NodeJS.ProcessEnv {
    return {
      PATH: "/usr/bin:/bin",
      HOME: this.home,
      LC_ALL: "C",
      LANG: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_ATTR_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_PAGER: "cat",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_AUTHOR_DATE: "1970-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "1970-01-01T00:00:00Z",
    };
  }

  private run(
    args: string[],
    opts: { input?: Buffer | string; noTree?: boolean; gitDir?: boolean } = {},
  ): { status: number | null; stdout: Buffer; stderr: string } {
    const where = opts.noTree
      ? opts.gitDir
        ? [`--git-dir=${this.dir}`]
        : []
      : [`--git-dir=${this.dir}`, `--work-tree=${this.root}`];
    const r = spawnSync(this.git, [...where, ...SHADOW_CONFIG.flatMap((c) => ["-c", c]), ...args], {
      cwd: this.root,
      env: this.env(),
      input: opts.input,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: CHECKPOINT_GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
      maxBuffer: CHECKPOINT_GIT_MAX_BYTES,
    });
    if (r.error) return { status: null, stdout: Buffer.alloc(0), stderr: r.error.message };
    return {
      status: r.status,
      stdout: r.stdout ?? Buffer.alloc(0),
      stderr: (r.stderr ?? Buffer.alloc(0)).toString("utf8").trim(),
    };
  }

  /** Records the tree as it is now; returns the checkpoint's id (a git tree id). */
  snapshot(): string {
    // --ignore-errors: a file that cannot be read (permissions) is left out rather than failing the checkpoint.
    const add = this.run(["add", "--all", "--ignore-errors", "--", "."]);
    if (add.status !== 0 && add.status !== 1) throw new CheckpointError(`checkpoint failed (git add): ${add.stderr}`);
    const tree = this.run(["write-tree"]);
    const id = tree.stdout.toString("utf8").trim();
    if (tree.status !== 0 || !/^[0-9a-f]{40,64}$/.test(id))
      throw new CheckpointError(`checkpoint failed (git write-tree): ${tree.stderr}`);
    // A ref per checkpoint (refs/rt/<tree>, written again when the same tree comes back): what holds its
    // objects against pruning, and, by the ref file's time, when it was last taken.
    const ref = this.run(["update-ref", `${CHECKPOINT_REFS}/${id}`, id]);
    if (ref.status !== 0) throw new CheckpointError(`checkpoint failed (git update-ref): ${ref.stderr}`);
    return id;
  }

  /** The checkpoints the store names, newest first: each tree id and when it was last taken (ms since the epoch). */
  list(): Array<{ tree: string; at: number }> {
    const dir = path.join(this.dir, ...CHECKPOINT_REFS.split("/"));
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return [];
    }
    const out: Array<{ tree: string; at: number }> = [];
    for (const name of names) {
      if (!/^[0-9a-f]{40,64}$/.test(name)) continue;
      try {
        out.push({ tree: name, at: fs.lstatSync(path.join(dir, name)).mtimeMs });
      } catch {
        // Deleted meanwhile by another rt's pruning.
      }
    }
    return out.sort((a, b) => b.at - a.at || a.tree.localeCompare(b.tree));
  }

  /** Bytes the store's objects take (loose and packed), as git counts them. */
  size(): number {
    const r = this.run(["count-objects", "-v"], { noTree: true, gitDir: true });
    if (r.status !== 0) return 0;
    const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, "m").exec(r.stdout.toString("utf8"))?.[1] ?? 0);
    return (kib("size") + kib("size-pack")) * 1024;
  }

  /**
   * Forgets checkpoints beyond the limits (older than maxAgeDays, beyond maxCount, the oldest while the
   * store is larger than maxBytes), never the newest `keepRecent` nor those in `protect` (the trees a
   * session's records name: its prompts' rewind points). Their objects that no kept checkpoint shares
   * are deleted once older than graceS. Returns the trees forgotten.
   */
  prune(
    protect: ReadonlySet<string> = new Set(),
    limits: Partial<PruneLimits> = {},
    now = Date.now(),
  ): { forgotten: string[] } {
    const l: PruneLimits = { ...DEFAULT_PRUNE_LIMITS, ...limits };
    const all = this.list();
    const candidates = all.slice(l.keepRecent).filter((c) => !protect.has(c.tree));
    const kept = new Set(all.map((c) => c.tree));
    const forget = new Set<string>();
    const oldest = now - l.maxAgeDays * 86_400_000;
    for (const c of candidates) if (c.at < oldest) forget.add(c.tree);
    // Beyond the count: the oldest candidates go until the count is within the limit (or none are left).
    for (let k = candidates.length - 1; k >= 0 && kept.size - forget.size > l.maxCount; k--)
      forget.add(candidates[k].tree);
    const forgotten: string[] = [];
    const drop = (trees: Iterable<string>) => {
      const names = [...trees].filter((t) => kept.has(t));
      if (names.length === 0) return false;
      const r = this.run(["update-ref", "--stdin"], {
        input: names.map((t) => `delete ${CHECKPOINT_REFS}/${t}\n`).join(""),
      });
      if (r.status !== 0) throw new CheckpointError(`pruning checkpoints failed (git update-ref): ${r.stderr}`);
      for (const t of names) {
        kept.delete(t);
        forgotten.push(t);
      }
      const expire = l.graceS <= 0 ? "now" : `${Math.round(l.graceS)}.seconds.ago`;
      this.run(["prune", `--expire=${expire}`], { noTree: true, gitDir: true });
      return true;
    };
    drop(forget);
    // Over the size: the oldest remaining candidates go a quarter at a time, measured again after each.
    let rest = candidates.filter((c) => kept.has(c.tree));
    for (let round = 0; rest.length && round < 8 && this.size() > l.maxBytes; round++) {
      const n = Math.max(1, Math.ceil(rest.length / 4));
      if (!drop(rest.slice(rest.length - n).map((c) => c.tree))) break;
      rest = rest.slice(0, rest.length - n);
    }
    return { forgotten };
  }

  /** Whether `id` is a checkpoint this store holds. */
  has(id: string): boolean {
    if (!/^[0-9a-f]{40,64}$/.test(id)) return false;
    return this.run(["cat-file", "-e", `${id}^{tree}`]).status === 0;
  }

  /** The paths that differ from checkpoint `from` to checkpoint `to`, with what `to` holds. */
  changes(from: string, to: string): TreeChange[] {
    for (const id of [from, to]) if (!this.has(id)) throw new CheckpointError(`no checkpoint ${id} in ${this.dir}`);
    const r = this.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", "--full-index", from, to]);
    if (r.status !== 0) throw new CheckpointError(`comparing checkpoints failed: ${r.stderr}`);
    const parts = r.stdout.toString("utf8").split("\0");
    const out: TreeChange[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([ADMT])/.exec(parts[i]);
      if (!m) continue;
      const status = m[5] as TreeChange["status"];
      out.push({ path: parts[i + 1], status, ...(status !== "D" ? { mode: m[2], blob: m[4] } : {}) });
    }
    return out;
  }

  /** The bytes of the blobs `ids`, read with one `git cat-file --batch`. */
  private blobs(ids: string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    if (ids.length === 0) return out;
    const r = this.run(["cat-file", "--batch"], { input: `${ids.join("\n")}\n` });
    if (r.status !== 0) throw new CheckpointError(`reading the checkpoint failed: ${r.stderr}`);
    const buf = r.stdout;
    let at = 0;
    while (at < buf.length) {
      const nl = buf.indexOf(10, at);
      const head = buf.toString("utf8", at, nl).split(" ");
      if (head[1] !== "blob") throw new CheckpointError(`the checkpoint store lacks ${head[0]}`);
      const size = Number(head[2]);
      out.set(head[0], buf.subarray(nl + 1, nl + 1 + size));
      at = nl + 1 + size + 1;
    }
    return out;
  }

  /**
   * Puts the tree back as checkpoint `target` holds it: every file that
   * differs from it now is rewritten (or removed when it did not exist then),
   * through `writer` (the workspace's confined writer), except the paths in
   * `keep`. Returns what was done. `now` is a checkpoint of the tree as it is
   * (taken by the caller just before, to compare and to undo).
   */
  restore(writer: ConfinedFs, now: string, target: string, keep: ReadonlySet<string> = new Set()): RestoreResult {
    const result: RestoreResult = { written: [], removed: [], skipped: [] };
    const changes = this.changes(now, target);
    const blobs = this.blobs([
      ...new Set(changes.filter((c) => c.blob && /^100(644|755)$/.test(c.mode ?? "")).map((c) => c.blob!)),
    ]);
    // Removals first: a file may give way to a directory of the same name.
    const ordered = [...changes.filter((c) => c.status === "D"), ...changes.filter((c) => c.status !== "D")];
    for (const c of ordered) {
      if (keep.has(c.path)) {
        result.skipped.push({ path: c.path, why: "changed outside rt since the checkpoint; kept" });
        continue;
      }
      const parts = c.path.split("/");
      try {
        if (c.status === "D") {
          writer.unlink(parts);
          result.removed.push(c.path);
        } else if (c.mode === "100644" || c.mode === "100755") {
          const exec = c.mode === "100755";
          const current = writer.lstat(parts);
          const base = current?.isFile() ? current.mode & 0o666 : 0o644;
          if (current?.isSymbolicLink()) writer.unlink(parts);
          writer.writeAtomic(parts, blobs.get(c.blob!)!, {
            mkdirs: true,
            mode: exec ? base | ((base & 0o444) >> 2) : base,
          });
          result.written.push(c.path);
        } else {
          result.skipped.push({
            path: c.path,
            why:
              c.mode === "120000"
                ? "a symbolic link (rt does not write links)"
                : `not a plain file (git mode ${c.mode})`,
          });
        }
      } catch (e) {
        result.skipped.push({ path: c.path, why: (e as Error).message });
      }
    }
    // Directories left empty by the removals did not exist at the checkpoint (git keeps no empty directory): gone too.
    const dirs = new Set<string>();
    for (const f of result.removed)
      for (let d = path.posix.dirname(f); d !== "."; d = path.posix.dirname(d)) dirs.add(d);
    for (const d of [...dirs].sort((a, b) => b.split("/").length - a.split("/").length)) {
      try {
        writer.removeEmptyDir(d.split("/"));
      } catch {
        // A directory rt cannot remove stays; it holds no file of the checkpoint either way.
      }
    }
    return result;
  }
}
