// The workspace owns every byte that is read or written: the root sandbox,
// the state directory, text access for large files, and line IDs.
import fs from "node:fs";
import path from "node:path";
import { ToolError } from "../base/errors.js";
import { resolveInside, type ResolvedPath } from "./paths.js";
import { StateStore, stateEnabledFromEnv } from "./state.js";
import { raceFree, type ConfinedFs } from "./confinedFs.js";
import { LineIdStore, statVersion } from "./lineIds.js";
import { ViewStore } from "./views.js";
import { fileBinaryKind, formatSize } from "./binary.js";
import { getLineIndex, readIndexedLines } from "./lineIndex.js";
import { hashBytes } from "./fingerprint.js";
import { LARGE_FILE_BYTES, LINE_ID_MAX_BYTES } from "../base/limits.js";

export type Profile = "dev" | "unsafe" | "safe-read-only";
export const PROFILES: readonly Profile[] = ["dev", "unsafe", "safe-read-only"];

export interface WorkspaceOptions {
  /** Workspace root; default: RT_ROOT, else the enclosing git repository, else `cwd`. */
  root?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Persist state in `.rt/`; default: on unless RT_STATE=off / RAGIX_VIEW_STATE=off. */
  state?: boolean;
  /** Default: RT_PROFILE, else "dev". */
  profile?: Profile;
  /** Run shell commands inside the OS sandbox even outside safe-read-only (`--sandbox`). */
  sandbox?: boolean;
  /** Let sandboxed commands use the network (`--allow-net`). */
  allowNet?: boolean;
  /** Where write_output creates files (`--out DIR`); default `.rt/out/`. */
  outDir?: string;
  /**
   * Files as an editor holds them, unsaved (`rt acp` fills this from the editor's
   * fs/read_text_file before a tool runs), by path relative to the root: reads
   * and edits take these bytes instead of the disk's, and rt's write of a file
   * drops its entry. Shared by every workspace made from these options.
   */
  editorBuffers?: Map<string, Buffer>;
  /**
   * The editor's own terminals (`rt acp` with a client that offers `terminal/*`):
   * an unsandboxed foreground `bash` command runs there, where the user sees it.
   */
  terminal?: ExternalTerminal;
}

/** A terminal someone else runs commands in (an editor's), as the bash tool uses it. */
export interface ExternalTerminal {
  run(request: {
    command: string;
    cwd: string;
    /** Variables the command must get in place of the terminal's own (PATH without repository directories). */
    env: Record<string, string>;
    timeoutMs: number;
    /** The terminal keeps at most this many bytes of output (the end of it). */
    outputByteLimit: number;
    signal?: AbortSignal;
  }): Promise<{
    /** stdout and stderr together, as the terminal shows them. */
    output: string;
    truncated: boolean;
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    durationMs: number;
  }>;
}

/** A window of a text file: what `open`, `read` and `scroll` show. */
export interface TextWindow {
  totalLines: number;
  /** Lines [start, start + lines.length), without line endings. */
  lines: string[];
}

/**
 * Walks up from `dir` to the first directory holding a `.git` (a directory, or
 * a file for worktrees) that belongs to this user. Like git's safe.directory
 * (CVE-2022-24765), a `.git` another user owns (a `/tmp/.git` planted by
 * someone else) is not a repository of ours: it would make their directory the
 * workspace, with its `.rt/` under their control. The walk goes on above it.
 */
export function findGitTop(dir: string): string | undefined {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  let d = path.resolve(dir);
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(path.join(d, ".git"));
    } catch {
      st = undefined;
    }
    if (st && (uid === undefined || st.uid === uid)) return d;
    const parent = path.dirname(d);
    if (parent === d) return undefined;
    d = parent;
  }
}

export class Workspace {
  readonly root: string;
  readonly state: StateStore;
  /** The one writer for files under the root (confinedFs.ts): no symlink below the root is ever followed. */
  readonly writer: ConfinedFs;
  readonly lineIds: LineIdStore;
  readonly views: ViewStore;
  readonly profile: Profile;
  readonly env: NodeJS.ProcessEnv;
  readonly options: WorkspaceOptions;

  constructor(opts: WorkspaceOptions = {}) {
    const env = opts.env ?? process.env;
    const cwd = opts.cwd ?? process.cwd();
    const chosen = opts.root ?? (env.RT_ROOT || undefined) ?? findGitTop(cwd) ?? cwd;
    const abs = path.resolve(cwd, chosen);
    let real: string;
    try {
      real = fs.realpathSync(abs);
    } catch {
      throw new ToolError(`workspace root ${abs} does not exist`);
    }
    if (!fs.statSync(real).isDirectory()) throw new ToolError(`workspace root ${abs} is not a directory`);
    this.root = real;
    this.env = env;
    this.options = opts;
    const profile = opts.profile ?? (env.RT_PROFILE as Profile | undefined) ?? "dev";
    if (!PROFILES.includes(profile)) {
      throw new ToolError(`unknown profile "${profile}": use one of ${PROFILES.join(", ")}`);
    }
    this.profile = profile;
    this.state = new StateStore(this.root, opts.state ?? stateEnabledFromEnv(env), env);
    this.writer = this.state.rootFs;
    this.lineIds = new LineIdStore(this.state);
    this.views = new ViewStore(this.state);
  }

  /** Resolves a user path inside the root, or throws a ToolError that says why not. */
  resolve(p: string): ResolvedPath {
    return resolveInside(this.root, p);
  }

  /** Resolves an existing regular file, refusing directories and binary files. */
  resolveTextFile(p: string): ResolvedPath & { stat: fs.Stats } {
    const r = this.resolveFile(p);
    const kind = fileBinaryKind(r.abs);
    if (kind) throw new ToolError(`${r.rel}: binary file (${kind}, ${formatSize(r.stat.size)}); not shown`);
    return r;
  }

  /** Resolves an existing regular file whatever it holds (read's images and PDFs), refusing directories. */
  resolveFile(p: string): ResolvedPath & { stat: fs.Stats } {
    const r = this.resolve(p);
    if (!r.exists) throw new ToolError(`${r.rel}: file not found`);
    const stat = fs.statSync(r.abs);
    if (stat.isDirectory()) throw new ToolError(`${r.rel}: is a directory; use ls or find to list it`);
    if (!stat.isFile()) throw new ToolError(`${r.rel}: not a regular file`);
    return { ...r, stat };
  }

  /**
   * The bytes of a whole file of any content, read through the confined writer
   * like a text file's (an image, a PDF), refused above `maxBytes` before reading.
   */
  readBytes(file: ResolvedPath & { stat: fs.Stats }, maxBytes: number): Buffer {
    if (file.stat.size > maxBytes)
      throw new ToolError(
        `${file.rel}: ${formatSize(file.stat.size)} is more than read opens (${formatSize(maxBytes)})`,
      );
    const bytes = this.readText(file);
    if (bytes.length > maxBytes)
      throw new ToolError(`${file.rel}: ${formatSize(bytes.length)} is more than read opens (${formatSize(maxBytes)})`);
    return bytes;
  }

  /**
   * Lines [start, start+count) of a text file (1-based), and its line count.
   * Large files go through the cached line-offset index and are never loaded whole.
   */
  async window(
    file: ResolvedPath & { stat: fs.Stats },
    start: number,
    count: number,
    opts: { viewed?: boolean } = {},
  ): Promise<TextWindow> {
    if (file.stat.size >= LARGE_FILE_BYTES && !this.options.editorBuffers?.has(file.rel)) {
      // Read through a descriptor the confined writer opened (see readText), reached as /proc/self/fd/N.
      const fd = this.writer.openRead(file.rel);
      try {
        const st = fs.fstatSync(fd);
        // Shown without line IDs: remembered by size and time (write after read).
        if (opts.viewed) this.lineIds.noteShownLarge(file.rel, statVersion(st));
        const via = raceFree() ? `/proc/self/fd/${fd}` : file.abs;
        const idx = await getLineIndex(this.state, file.rel, file.abs, st, via);
        return { totalLines: idx.totalLines, lines: readIndexedLines(via, idx, start, count) };
      } finally {
        fs.closeSync(fd);
      }
    }
    const bytes = this.readText(file);
    const lines = splitLines(bytes.toString("utf8"));
    // `viewed`: the caller is shown this version, so a later edit by plain line
    // numbers can tell whether they still point at the lines it saw (see
    // staleNumber in edit/lineRefs.ts). Files read through the line index are not tracked.
    if (opts.viewed) this.lineIds.idsFor(file.rel, lines, hashBytes(bytes), { viewed: true });
    return { totalLines: lines.length, lines: lines.slice(start - 1, start - 1 + count) };
  }

  /**
   * The bytes of a resolved file, read through the confined writer: the path is
   * walked again from the root without following a symlink, so a directory on
   * the way swapped for a symlink since `resolve` cannot make a tool show (or
   * hash into `.rt/ids/`) a file outside the root. A symlink met is refused.
   * An editor's unsaved text of the file, when there is one, is read instead.
   */
  private readText(file: ResolvedPath): Buffer {
    const bytes = this.options.editorBuffers?.get(file.rel) ?? this.writer.readFile(file.rel);
    if (bytes === undefined)
      throw new ToolError(`${file.rel}: file not found (it disappeared while rt was reading it)`);
    return bytes;
  }

  /**
   * The bytes of a whole file, read through the confined writer, recorded as
   * shown to the caller (write after read) like a window of it: for tools that
   * present a file in another form (a notebook's cells).
   */
  readShown(file: ResolvedPath & { stat: fs.Stats }): Buffer {
    const bytes = this.readText(file);
    if (bytes.length <= LINE_ID_MAX_BYTES)
      this.lineIds.idsFor(file.rel, splitLines(bytes.toString("utf8")), hashBytes(bytes), { viewed: true });
    return bytes;
  }

  /** The whole text of a file with its line IDs (files up to LINE_ID_MAX_BYTES). */
  linesWithIds(
    file: ResolvedPath & { stat: fs.Stats },
    opts: { viewed?: boolean } = {},
  ): { lines: string[]; ids: string[]; hash: string } {
    if (file.stat.size > LINE_ID_MAX_BYTES) {
      throw new ToolError(
        `${file.rel}: line IDs are kept for files up to ${formatSize(LINE_ID_MAX_BYTES)}; this one is ${formatSize(file.stat.size)}. Use line numbers instead.`,
      );
    }
    const bytes = this.readText(file);
    const lines = splitLines(bytes.toString("utf8"));
    const hash = hashBytes(bytes);
    const ids = this.lineIds.idsFor(file.rel, lines, hash, opts);
    return { lines, ids, hash };
  }
}

/** Splits text into lines without their endings; a final newline does not start a new line. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.length > 0 && l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

export function createWorkspace(opts: WorkspaceOptions = {}): Workspace {
  return new Workspace(opts);
}
