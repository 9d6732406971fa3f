// The search behind grep (a tree) and grep_file (one file): ripgrep run and
// read while it runs, matches in path order, capped, with line IDs on request.
import fs from "node:fs";
import path from "node:path";
import * as z from "zod";
import { ok, ToolError, type CliOption, type ToolProgress, type ToolResult } from "../types.js";
import type { Workspace } from "../../workspace/workspace.js";
import { binaryKind as binaryKindOf, fileBinaryKind, formatSize } from "../../workspace/binary.js";
import { baseArgs, comparePaths, globMatcher, runRg, type RgRun } from "./ripgrep.js";
import { aliasNote } from "./argAliases.js";
import { statVersion } from "../../workspace/lineIds.js";
import { literalLines, literalOf, type FileLines } from "./literalLines.js";
import { cutLine, plural } from "./format.js";
import { readStart } from "../../base/regularFile.js";
import {
  LARGE_FILE_BYTES,
  GREP_DEFAULT_CAP,
  GREP_MAX_CONTEXT,
  GREP_MAX_LINE_CHARS,
  GREP_PROGRESS_EVERY_MS,
  GREP_TIMEOUT_MS,
  MAX_LINE_CHARS,
} from "../../base/limits.js";

/** Other names models use for grep's arguments (Claude Code's and other agents'; the older search_dir takes root). */
export const GREP_ALIASES = {
  case_insensitive: "ignore_case",
  head_limit: "limit",
  glob_filter: "glob",
  root: "path",
} as const;
export const GREP_FILE_ALIASES = { case_insensitive: "ignore_case", head_limit: "limit", file_path: "path" } as const;

export function grepOptions(aliases: Record<string, string>) {
  const context = z.number().int().min(0).max(GREP_MAX_CONTEXT);
  return {
    pattern: z.string().min(1).describe("Rust regex, or text with fixed_strings"),
    ignore_case: z
      .boolean()
      .optional()
      .describe(`Case-insensitive${aliasNote(aliases, "ignore_case")}`),
    fixed_strings: z.boolean().optional().describe("Pattern is literal text"),
    context: context.optional().describe("Context lines around matches"),
    context_before: context.optional().describe("Context lines before"),
    context_after: context.optional().describe("Context lines after"),
    multiline: z.boolean().optional().describe("Matches may span lines"),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Matches shown (default ${GREP_DEFAULT_CAP})${aliasNote(aliases, "limit")}`),
    ids: z.boolean().optional().describe("Add line IDs"),
    show_line_numbers: z.boolean().optional().describe("Default true"),
  };
}

/** The options grep and grep_file share on the command line (`rt grep -i -C 2`); the rest is in their schema. */
export const GREP_CLI_OPTIONS: Readonly<Record<string, CliOption>> = {
  ignore_case: { short: "i" },
  fixed_strings: { short: "F" },
  context: { short: "C" },
  context_before: { flag: "before-context", short: "B" },
  context_after: { flag: "after-context", short: "A" },
  multiline: { short: "U" },
  limit: {},
  ids: {},
};

export interface Match {
  file: string;
  line: number;
  content: string;
  line_id?: string;
}

interface SearchSpec {
  pattern: string;
  ignore_case?: boolean;
  fixed_strings?: boolean;
  context?: number;
  context_before?: number;
  context_after?: number;
  multiline?: boolean;
  limit?: number;
  ids?: boolean;
  show_line_numbers?: boolean;
  glob?: string;
  output_mode?: "content" | "files_with_matches" | "count";
}

/** A line ripgrep printed: a match, or a context line around one. */
interface Line {
  line: number;
  match: boolean;
  /** The line's text, or its first RG_MAX_COLUMNS bytes when `long`. */
  content: string;
  /** ripgrep cut the line (longer than RG_MAX_COLUMNS bytes). */
  long?: boolean;
}

/** One file's part of the output (ripgrep prints each file's lines together, in order). */
interface Group {
  file: string;
  /** Matching lines (content mode), or the file's count (count mode), or 1 (files mode). */
  count: number;
  /** Its first lines, up to the limit-th match and the context after it (content mode). */
  lines: Line[];
  shownMatches: number;
  /** Lines after the limit-th match still kept as its after-context. */
  tail: number;
  /** Count mode: the file's number of matching lines. */
  matches?: number;
}

/**
 * The groups that can still be shown: the first `limit` matches in path order
 * need only the groups up to the one holding the limit-th match, so groups
 * sorting after that one are dropped, and one that arrives sorting after it is
 * not kept at all. Groups are sorted and trimmed now and then (when they hold
 * twice the limit), not on every arrival. Memory stays bounded by the limit,
 * whatever the number of matches, and the result does not depend on the order
 * ripgrep's threads finish files in.
 */
class FirstInPathOrder {
  private groups: Group[] = [];
  private sum = 0;
  /** The last group kept at the latest trim, once the limit was reached. */
  private boundary: string | undefined;

  constructor(private readonly limit: number) {}

  /** Could a group for `file` still be shown? */
  wants(file: string): boolean {
    return this.boundary === undefined || comparePaths(file, this.boundary) < 0;
  }

  /** Fewer matches kept than the limit: every file that matches will be shown (so far). */
  filling(): boolean {
    return this.sum < this.limit;
  }

  add(g: Group): void {
    this.groups.push(g);
    this.sum += g.count;
    if (this.sum >= 2 * this.limit + 64) this.trim();
  }

  private trim(): void {
    this.groups.sort((x, y) => comparePaths(x.file, y.file));
    while (this.groups.length > 1 && this.sum - this.groups[this.groups.length - 1].count >= this.limit)
      this.sum -= this.groups.pop()!.count;
    if (this.sum >= this.limit) this.boundary = this.groups[this.groups.length - 1].file;
  }

  /** The kept groups in path order. */
  sorted(): Group[] {
    this.trim();
    return this.groups;
  }

  /** Whether groups were dropped (or never kept) because the limit was reached. */
  dropped(): boolean {
    return this.boundary !== undefined;
  }
}

const NUL = 0;
const NEWLINE = 10;
const CR = 13;
const COLON = 58;
const DASH = 45;
/** How ripgrep's line saying it stopped searching a file at a NUL byte begins, after the file's name. */
const RG_BINARY_STOP = ": WARNING: stopped searching binary file";
/** What ripgrep appends to a line it cut at --max-columns. */
const RG_CUT_MARK = " [... omitted end of long line]";
/** ripgrep prints at most this many bytes of a line (the rest would be cut for display anyway). */
const RG_MAX_COLUMNS = MAX_LINE_CHARS;
/** At most this many bytes of paths go on ripgrep's command line (Linux allows 2 MB for arguments and environment together). */
const MAX_LISTED_BYTES = 256 * 1024;
/** How often the first of two runs' output is read while ripgrep searches: it is a line per file, and only checks run meanwhile. */
const COUNT_POLL_MS = 20;

/** A line's text cut to `max` characters, saying so (also when ripgrep already cut it). */
function shownText(l: Line, max: number): string {
  if (!l.long) return cutLine(l.content, max);
  return `${l.content.slice(0, max)}… [line cut: longer than ${RG_MAX_COLUMNS} bytes]`;
}

/**
 * Reads ripgrep's `--null --line-number` output ("path\0N:text" for a match,
 * "path\0N-text" for context) straight from its bytes: counting every match,
 * but decoding text only for lines that can still be shown.
 */
class ContentParser {
  total = 0;
  private carry: Buffer | undefined;
  private name: Buffer | undefined;
  private group: Group | undefined;
  /** The current group is kept for showing (else only counted). */
  private keeping = false;
  /** The current file is left out (glob filter, binary): its lines are not counted. */
  private skipping = false;

  constructor(
    private readonly limit: number,
    private readonly after: number,
    /** A new file's lines begin: whether to count them, and whether they may be shown. */
    private readonly start: (file: string) => { count: boolean; keep: boolean },
    private readonly done: (g: Group, kept: boolean) => void,
  ) {}

  feed(chunk: Buffer): void {
    let from = 0;
    if (this.carry) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) {
        this.carry = Buffer.concat([this.carry, chunk]);
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, nl)]);
      this.carry = undefined;
      this.line(line, 0, line.length);
      from = nl + 1;
    }
    for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
      this.line(chunk, from, nl);
      from = nl + 1;
    }
    if (from < chunk.length) this.carry = Buffer.from(chunk.subarray(from));
  }

  end(): void {
    if (this.carry) {
      const line = this.carry;
      this.carry = undefined;
      this.line(line, 0, line.length);
    }
    this.close();
  }

  private close(): void {
    if (this.group) this.done(this.group, this.keeping);
    this.group = undefined;
  }

  /** Whether buf[s, e) begins with `name` and then `text`. */
  private startsWith(buf: Buffer, s: number, e: number, name: Buffer, text: string): boolean {
    const at = s + name.length;
    return (
      e - s >= name.length + text.length &&
      buf.compare(name, 0, name.length, s, at) === 0 &&
      buf.toString("latin1", at, at + text.length) === text
    );
  }

  private line(buf: Buffer, s: number, e: number): void {
    if (e > s && buf[e - 1] === CR) e--;
    const name = this.name;
    let rest: number;
    if (
      name &&
      e - s > name.length &&
      buf[s + name.length] === NUL &&
      buf.compare(name, 0, name.length, s, s + name.length) === 0
    ) {
      rest = s + name.length + 1;
    } else {
      const nul = buf.indexOf(NUL, s);
      if (nul === -1 || nul >= e) {
        // "--" between context groups (the gaps are shown from the line
        // numbers), or ripgrep's word that it met a NUL byte in the file after
        // printing some of its lines: the file is left out whole, as --count
        // leaves it out (and as a NUL byte near its start would have).
        if (this.group && name && this.startsWith(buf, s, e, name, RG_BINARY_STOP)) {
          this.total -= this.group.count;
          this.group = undefined;
          this.skipping = true;
        }
        return;
      }
      this.close();
      this.name = Buffer.from(buf.subarray(s, nul));
      const file = buf.toString("utf8", s, nul);
      const how = this.start(file);
      this.skipping = !how.count;
      this.keeping = how.keep;
      this.group = { file, count: 0, lines: [], shownMatches: 0, tail: 0 };
      rest = nul + 1;
    }
    if (this.skipping) return;
    let n = 0;
    let i = rest;
    for (; i < e; i++) {
      const c = buf[i];
      if (c < 48 || c > 57) break;
      n = n * 10 + c - 48;
    }
    const g = this.group!;
    const isMatch = buf[i] === COLON;
    if (!isMatch && buf[i] !== DASH) return;
    if (isMatch) {
      this.total++;
      g.count++;
    }
    if (!this.keeping || !admitLine(g, this.limit, this.after, n, isMatch)) return;
    const text = buf.toString("utf8", i + 1, e);
    if (text.endsWith(RG_CUT_MARK))
      g.lines.push({ line: n, match: isMatch, content: text.slice(0, -RG_CUT_MARK.length), long: true });
    else g.lines.push({ line: n, match: isMatch, content: text });
  }
}

/** What grep learned by reading a file it may show (see search). */
interface Look {
  /** binaryKind of its first bytes. */
  kind: string | null;
  /** statVersion of the bytes read. */
  version: string;
  /** Its lines, as ripgrep prints them (undefined where that cannot be told: see literalLines). */
  printed: FileLines | undefined;
}

/**
 * The buffer files are read into, one per process and grown as needed up to
 * LARGE_FILE_BYTES: a fresh one for each file cost more than reading it. It
 * is filled and looked at within one synchronous call.
 */
let lookBuffer: Buffer | undefined;

/**
 * Reads a file ripgrep found and looks at it: its binary check and a literal
 * pattern's lines up to the `maxMatches`-th match. It is opened by its path
 * below the root, as ripgrep opened it a moment before (the last name not
 * through a symlink): the lines shown are those ripgrep would have printed
 * from it. Undefined when it cannot be read whole (gone, not a regular file,
 * larger than LARGE_FILE_BYTES): the caller checks it and has ripgrep print it.
 */
function look(
  root: string,
  file: string,
  needle: Buffer,
  before: number,
  after: number,
  maxMatches: number,
): Look | undefined {
  const abs = path.join(root, file);
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > LARGE_FILE_BYTES) return undefined;
    if (!lookBuffer || lookBuffer.length < st.size) lookBuffer = Buffer.allocUnsafe(Math.max(st.size, 64 * 1024));
    const bytes = lookBuffer.subarray(0, readStart(fd, lookBuffer, st.size));
    return {
      kind: binaryKindOf(bytes),
      version: statVersion(st),
      printed: literalLines(bytes, needle, before, after, RG_MAX_COLUMNS, maxMatches),
    };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether a group keeps line `n`, printed after its earlier lines: up to its
 * limit-th match, and after that only the match's after-context.
 */
function admitLine(g: Group, limit: number, after: number, n: number, isMatch: boolean): boolean {
  if (g.shownMatches >= limit) {
    if (isMatch || g.tail >= after || n !== g.lines[g.lines.length - 1].line + 1) return false;
    g.tail++;
  } else if (isMatch) g.shownMatches++;
  return true;
}

/** Splits ripgrep output into NUL-terminated (files mode) or newline-terminated (count mode) records. */
function recordSplitter(
  separator: number,
  onRecord: (text: string) => void,
): { feed: (chunk: Buffer) => void; end: () => void } {
  let carry: Buffer | undefined;
  return {
    feed(chunk) {
      const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
      carry = undefined;
      let from = 0;
      for (let at = buf.indexOf(separator, from); at !== -1; at = buf.indexOf(separator, from)) {
        onRecord(buf.toString("utf8", from, at));
        from = at + 1;
      }
      if (from < buf.length) carry = Buffer.from(buf.subarray(from));
    },
    end() {
      if (carry?.length) onRecord(carry.toString("utf8"));
      carry = undefined;
    },
  };
}

/**
 * Shared by grep (a tree) and grep-file (one file). `target` is a path relative
 * to the root, already checked; "." means the whole root.
 */
export async function search(
  workspace: Workspace,
  target: string,
  spec: SearchSpec,
  single: boolean,
  signal?: AbortSignal,
  onProgress?: (p: ToolProgress) => void,
): Promise<ToolResult> {
  const mode = spec.output_mode ?? "content";
  const limit = spec.limit ?? GREP_DEFAULT_CAP;
  const before = spec.context_before ?? spec.context ?? 0;
  const after = spec.context_after ?? spec.context ?? 0;
  // --crlf: `$` also matches before "\r\n", so anchors work in CRLF files
  // (ripgrep then ends its output lines with "\r\n"; the "\r" is dropped).
  const args = [...baseArgs(), "--no-messages", "--crlf"];
  if (spec.ignore_case) args.push("--ignore-case");
  if (spec.fixed_strings) args.push("--fixed-strings");
  if (spec.multiline) args.push("--multiline", "--multiline-dotall");
  // ripgrep's --glob is an override: a positive one would bring back files that
  // .gitignore or the skip list leave out. So only exclusions go to --glob; a file
  // name glob becomes a file type (types honor ignore rules); others are matched here.
  let keep: ((file: string) => boolean) | undefined;
  if (spec.glob) {
    if (spec.glob.startsWith("!")) args.push("--glob", spec.glob);
    else if (!spec.glob.includes("/") && !spec.glob.includes(":"))
      args.push("--type-add", `rtglob:${spec.glob}`, "--type", "rtglob");
    else keep = globMatcher(spec.glob);
  }
  args.push("--regexp", spec.pattern);
  const countArgs = [...args, "--count", "--with-filename", "--null"];
  const lineArgs = [
    ...args,
    "--line-number",
    "--with-filename",
    "--null",
    "--max-columns",
    String(RG_MAX_COLUMNS),
    "--max-columns-preview",
  ];
  if (before) lineArgs.push("--before-context", String(before));
  if (after) lineArgs.push("--after-context", String(after));
  const within = target !== "." ? ["--", target] : [];
  // A literal pattern's matches in a directory are found in two steps: ripgrep
  // counts each file's matching lines, then rt reads the files to be shown
  // and finds their lines itself (see look). Most of a common pattern's matches
  // are only counted, and printing them all (21 MB for 200,000 lines) cost
  // more than reading the few files shown (bench/NOTES.md). A regular
  // expression's lines, and a file's given as the path, are printed by
  // ripgrep in one run. A multiline search is never literal: a match counts
  // once however many lines it spans.
  const literal =
    mode === "content"
      ? literalOf(spec.pattern, {
          fixedStrings: spec.fixed_strings,
          ignoreCase: spec.ignore_case,
          multiline: spec.multiline,
        })
      : undefined;
  const twoRuns = literal !== undefined && isDirectory(path.join(workspace.root, target));
  const needle = twoRuns ? Buffer.from(literal!) : undefined;
  const firstArgs = [
    ...(mode === "files_with_matches"
      ? [...args, "--files-with-matches", "--null"]
      : mode === "count" || twoRuns
        ? countArgs
        : lineArgs),
    ...within,
  ];
  const looks = new Map<string, Look | undefined>();
  const lookAt = (file: string): Look | undefined => {
    if (!looks.has(file)) looks.set(file, look(workspace.root, file, needle!, before, after, limit));
    return looks.get(file);
  };

  // ripgrep skips files with NUL bytes; read and open also refuse files that are
  // mostly control bytes or have a binary magic number, so grep leaves those out
  // too. Only the files whose matches would be shown are checked (8 KB each,
  // or the whole file look reads), in path order, after the search. When one
  // of them is binary, other files may have been dropped for it: the search
  // runs again knowing it (rare: only binary-looking files without a NUL byte
  // get that far).
  const binaryKinds = new Map<string, string | null>();
  const binaryKind = (file: string): string | null => {
    let kind = binaryKinds.get(file);
    if (kind === undefined) {
      kind = needle ? lookAt(file)?.kind : undefined;
      if (kind === undefined) {
        try {
          // Not a regular file (a FIFO ripgrep was given): reading it here would block.
          const abs = path.join(workspace.root, file);
          kind = fs.statSync(abs).isFile() ? fileBinaryKind(abs) : null;
        } catch {
          kind = null; // unreadable: treated as text, like read does
        }
      }
      binaryKinds.set(file, kind);
    }
    return kind;
  };
  const isKnownBinary = (file: string) => {
    const k = binaryKinds.get(file);
    return k !== undefined && k !== null;
  };

  /** What a file adds to the total: its matching lines, or 1 file (files_with_matches). */
  const counted = (g: Group) => (mode === "count" ? (g.matches ?? 0) : g.count);

  const scan = async () => {
    const top = new FirstInPathOrder(limit);
    let total = 0;
    let fileTotal = 0;
    /** Known binary files that matched, with what they would have added to the total. */
    const inBinary: Array<{ file: string; count: number }> = [];
    /** Files found in the output read last, not yet looked at. */
    let unread: string[] = [];
    const admit = (file: string): { count: boolean; keep: boolean } => {
      if (keep && !keep(file)) return { count: false, keep: false };
      // While fewer matches than the limit are kept, each file would be shown:
      // checked (or read) now, while ripgrep is still searching (a rare
      // pattern's few files cost nothing after it exits). Later ones only at the end.
      if (top.filling()) {
        if (needle) unread.push(file);
        else binaryKind(file);
      }
      return { count: true, keep: top.wants(file) && !isKnownBinary(file) };
    };
    const finished = (g: Group, kept: boolean) => {
      if (isKnownBinary(g.file)) inBinary.push({ file: g.file, count: counted(g) });
      else if (kept) top.add(g);
    };
    let parser: { feed: (chunk: Buffer) => void; end: () => void };
    let content: ContentParser | undefined;
    if (mode === "content" && !twoRuns) {
      content = new ContentParser(limit, after, admit, finished);
      parser = content;
    } else {
      // files_with_matches: "path\0" per file; count (and the first of two runs): "path\0N\n" per file.
      const counts = mode !== "files_with_matches";
      parser = recordSplitter(counts ? NEWLINE : NUL, (record) => {
        const text = record.endsWith("\r") ? record.slice(0, -1) : record;
        const nul = counts ? text.lastIndexOf("\0") : text.length;
        if (nul <= 0) return;
        const file = text.slice(0, nul);
        const count = counts ? Number(text.slice(nul + 1)) : 1;
        const how = admit(file);
        if (!how.count) return;
        total += count;
        fileTotal++;
        // The limit counts files in files and count modes, matching lines in content mode.
        const group: Group =
          mode === "count"
            ? { file, count: 1, matches: count, lines: [], shownMatches: 0, tail: 0 }
            : { file, count, lines: [], shownMatches: 0, tail: 0 };
        finished(group, how.keep);
      });
    }
    // While ripgrep runs (it may print nothing for a long time), how far it got.
    const report = () => {
      const found = content ? content.total : total;
      onProgress?.({
        kind: "status",
        message: `searching: ${plural(found, mode === "content" ? "matching line" : mode === "count" ? "match" : "file")} so far`,
        done: found,
      });
    };
    const ticker = onProgress ? setInterval(report, GREP_PROGRESS_EVERY_MS) : undefined;
    let run: RgRun;
    try {
      const onData = (chunk: Buffer) => {
        parser.feed(chunk);
        // A literal pattern's files are read while ripgrep searches only while
        // every file found so far will be shown: a common pattern's first files
        // would mostly be read for nothing.
        if (top.filling()) for (const file of unread) binaryKind(file);
        unread = [];
      };
      run = await runRg(
        firstArgs,
        workspace.root,
        GREP_TIMEOUT_MS,
        onData,
        signal,
        twoRuns ? COUNT_POLL_MS : undefined,
      );
    } finally {
      if (ticker) clearInterval(ticker);
    }
    parser.end();
    if (content) total = content.total;
    return { top, run, total, fileTotal, inBinary };
  };

  /** The versions (statVersion) of the bytes shown files' lines were taken from, where rt read them itself. */
  const shownVersions = new Map<string, string>();
  const started = Date.now();
  let found = await scan();
  /** The groups shown: the first in path order whose files are not binary, up to the limit. */
  let shownGroups: Group[] = [];
  for (;;) {
    shownGroups = [];
    let shownCount = 0;
    let newBinary = false;
    for (const g of found.top.sorted()) {
      if (shownCount >= limit) break;
      if (binaryKind(g.file) !== null) {
        found.inBinary.push({ file: g.file, count: counted(g) });
        newBinary = true;
        continue;
      }
      shownGroups.push(g);
      shownCount += g.count;
    }
    if (!newBinary || !found.top.dropped() || found.run.timedOut) break;
    found = await scan();
  }
  const { run } = found;
  let { total, fileTotal } = found;
  let timedOut = run.timedOut;

  if (run.exitCode === 2 && total === 0 && !run.timedOut) {
    const msg = run.stderr.trim().split("\n").slice(0, 6).join("\n");
    throw new ToolError(
      `grep failed: ${msg || "ripgrep reported an error"}${spec.fixed_strings ? "" : "\n(if you meant the text literally, set fixed_strings)"}`,
    );
  }

  /**
   * A second ripgrep run, printing the lines of `groups`' files into them.
   * Returns how much their count changed since the first run.
   */
  const printByRipgrep = async (groups: Group[]): Promise<{ change: number; timedOut: boolean }> => {
    const wanted = new Map(groups.map((g) => [g.file, g]));
    const printed = new Map<string, Group>();
    const parser = new ContentParser(
      limit,
      after,
      (file) => ({ count: wanted.has(file), keep: wanted.has(file) }),
      (g) => printed.set(g.file, g),
    );
    const files = [...wanted.keys()];
    // The files go on the command line unless they would not fit on it; then the target is searched again, whole.
    const listed = files.reduce((n, f) => n + f.length + 1, 0) <= MAX_LISTED_BYTES;
    const timeout = Math.max(5000, GREP_TIMEOUT_MS - (Date.now() - started));
    const run = await runRg(
      [...lineArgs, ...(listed ? ["--", ...files] : within)],
      workspace.root,
      timeout,
      (chunk) => parser.feed(chunk),
      signal,
    );
    parser.end();
    let change = 0;
    for (const g of groups) {
      const now = printed.get(g.file);
      change += (now?.count ?? 0) - g.count;
      g.count = now?.count ?? 0;
      g.lines = now?.lines ?? [];
    }
    return { change, timedOut: run.timedOut };
  };

  if (twoRuns && shownGroups.length) {
    // The shown files' lines, found in the bytes look read when they hold as
    // many matching lines as ripgrep counted. The others (changed since,
    // larger than rt reads whole, or read differently by ripgrep: see
    // literalLines) are printed by a second ripgrep run; a file that changed
    // shows its lines as they are now, and the total follows them. After a
    // first run that timed out, the files it found are still shown.
    const byRg: Group[] = [];
    for (const g of shownGroups) {
      const seen = lookAt(g.file);
      const printed = seen?.printed;
      if (!seen || printed?.count !== g.count) {
        byRg.push(g);
        continue;
      }
      if (isPlainRel(g.file)) shownVersions.set(g.file, seen.version);
      // Already cut at the limit-th match and its after-context, as admitLine cuts ripgrep's.
      g.lines = printed.lines;
    }
    if (byRg.length) {
      const retold = await printByRipgrep(byRg);
      timedOut ||= retold.timedOut;
      total += retold.change;
    }
  }

  // Matches in binary files up to the last shown file are not counted: those
  // files were all checked, whatever order ripgrep printed them in. Files after
  // it are counted like any other (they were not looked at).
  const shownMatchCount = shownGroups.reduce((n, g) => n + g.count, 0);
  const cutoff = shownMatchCount >= limit ? shownGroups[shownGroups.length - 1]?.file : undefined;
  const seen = new Set<string>();
  const leftOut = found.inBinary
    .filter((b) => (cutoff === undefined || comparePaths(b.file, cutoff) < 0) && !seen.has(b.file) && seen.add(b.file))
    .sort((x, y) => comparePaths(x.file, y.file));
  for (const b of leftOut) {
    total -= b.count;
    fileTotal--;
  }
  const tail: string[] = [];
  if (leftOut.length) {
    const names = leftOut.slice(0, 5).map((b) => `${b.file} (${binaryKinds.get(b.file)})`);
    tail.push(
      `(${plural(leftOut.length, "binary file")} with matches not shown: ${names.join(", ")}${leftOut.length > 5 ? ", ..." : ""})`,
    );
  }
  if (timedOut) tail.push(`... search timed out after ${GREP_TIMEOUT_MS / 1000}s; results are incomplete`);
  const binaryMeta = leftOut.length ? { binary_files: leftOut.map((b) => b.file) } : {};

  if (mode === "files_with_matches") {
    const files = shownGroups.map((g) => g.file);
    const lines = files.length ? [...files] : [`no files match ${JSON.stringify(spec.pattern)}`];
    if (total > files.length) lines.push(`... truncated (${total - files.length} more files)`);
    return ok([...lines, ...tail].join("\n"), {
      files,
      count: total,
      truncated: total > files.length || timedOut,
      ...binaryMeta,
    });
  }
  if (mode === "count") {
    const counts = shownGroups.map((g) => ({ file: g.file, count: g.matches ?? 0 }));
    const lines = counts.length
      ? counts.map((c) => `${c.file}:${c.count}`)
      : [`no matches for ${JSON.stringify(spec.pattern)}`];
    if (fileTotal > counts.length) lines.push(`... truncated (${fileTotal - counts.length} more files)`);
    return ok([...lines, ...tail].join("\n"), {
      counts,
      count: total,
      truncated: fileTotal > counts.length || timedOut,
      ...binaryMeta,
    });
  }

  // The first `limit` matches in path order, with their context.
  const matches: Match[] = [];
  const shown: Array<{ file: string; line: Line; index?: number }> = [];
  for (const g of shownGroups) {
    if (matches.length >= limit) break;
    let lastMatchLine = 0;
    for (const l of g.lines) {
      if (l.match) {
        if (matches.length >= limit) break;
        matches.push({ file: g.file, line: l.line, content: shownText(l, MAX_LINE_CHARS) });
        shown.push({ file: g.file, line: l, index: matches.length - 1 });
        lastMatchLine = l.line;
      } else {
        // Context after the limit-th match only as far as its own after-context reaches.
        if (matches.length >= limit && l.line > lastMatchLine + after) break;
        shown.push({ file: g.file, line: l });
      }
    }
  }
  noteMatches(workspace, matches, spec.ids === true, shownVersions);
  const numbers = spec.show_line_numbers !== false;
  const withContext = before > 0 || after > 0;
  const lines: string[] = [];
  let prev: { file: string; line: number } | undefined;
  for (const s of shown) {
    if (withContext && prev && (prev.file !== s.file || s.line.line !== prev.line + 1)) lines.push("--");
    prev = { file: s.file, line: s.line.line };
    const sep = s.line.match ? ":" : "-";
    const prefix = `${single ? "" : `${s.file}${sep}`}${numbers ? `${s.line.line}${sep}` : ""}`;
    const id = s.index !== undefined ? matches[s.index].line_id : undefined;
    const text = shownText(s.line, GREP_MAX_LINE_CHARS);
    lines.push(id ? `${prefix}[LID:${id}]: ${text}` : prefix ? `${prefix} ${text}` : text);
  }
  if (matches.length === 0)
    lines.push(`no matches for ${JSON.stringify(spec.pattern)}${target !== "." ? ` in ${target}` : ""}`);
  if (total > matches.length) {
    lines.push(
      `... truncated: showing ${matches.length} of ${plural(total, "match", "matches")} (the first in path order; ${total - matches.length} more); narrow the pattern or path, or raise limit`,
    );
  }
  return ok([...lines, ...tail].join("\n"), {
    matches,
    count: total,
    truncated: total > matches.length || timedOut,
    ...binaryMeta,
  });
}

/**
 * Records the matched lines as seen by the caller (their numbers are current:
 * see staleNumber in edit/lineRefs.ts) and, with `withIds`, attaches each
 * match's line ID. Reads each matched file once; files the caller never viewed
 * are only read when IDs are asked for.
 */
function noteMatches(
  workspace: Workspace,
  matches: Match[],
  withIds: boolean,
  versions: ReadonlyMap<string, string>,
): void {
  const byFile = new Map<string, Match[]>();
  for (const m of matches) {
    const list = byFile.get(m.file) ?? [];
    list.push(m);
    byFile.set(m.file, list);
  }
  // One walk to the state directory for the records of every file shown, not one per file.
  workspace.lineIds.withPreloaded([...byFile.keys()], () => {
    for (const [file, list] of byFile) {
      try {
        if (!withIds && !workspace.lineIds.viewed(file)) {
          // Not read before: the matches still show this version of it (write after read).
          const known = versions.get(file);
          const version = known === undefined ? shownVersion(workspace, file) : { rel: file, version: known };
          if (version !== undefined) workspace.lineIds.noteShown(version.rel, version.version);
          continue;
        }
        const f = workspace.resolveTextFile(file);
        const { ids, hash } = workspace.linesWithIds(f);
        if (withIds) for (const m of list) m.line_id = ids[m.line - 1];
        workspace.lineIds.markViewed(
          f.rel,
          hash,
          list.map((m) => m.line),
        );
      } catch {
        // A file too large for IDs keeps plain line numbers.
      }
    }
  });
}

/**
 * The version (statVersion) of a file ripgrep just printed, for noteShown. Its
 * paths are root-relative and normal, and it printed no file through a
 * symbolic link, so one lstat of root/path finds the file (a path of any other
 * shape takes workspace.resolve). A directory swapped for a symlink meanwhile
 * could at worst record another file's size and time: the version only says
 * what the caller was shown, nothing is read or written through it.
 */
function shownVersion(workspace: Workspace, file: string): { rel: string; version: string } | undefined {
  if (isPlainRel(file)) {
    try {
      const st = fs.lstatSync(path.join(workspace.root, file));
      return st.isFile() ? { rel: file, version: statVersion(st) } : undefined;
    } catch {
      return undefined;
    }
  }
  const f = workspace.resolve(file);
  return f.exists ? { rel: f.rel, version: statVersion(fs.statSync(f.abs)) } : undefined;
}

function isDirectory(abs: string): boolean {
  try {
    return fs.statSync(abs).isDirectory();
  } catch {
    return false;
  }
}

/** A path as ripgrep prints it below the root: relative, normal, without backslashes. */
function isPlainRel(file: string): boolean {
  return (
    file !== "" &&
    !path.isAbsolute(file) &&
    path.posix.normalize(file) === file &&
    !file.startsWith("../") &&
    !file.includes("\\")
  );
}

/** A file given to grep itself (not a directory) that read would refuse as binary: said, not searched. */
export function refuseBinary(rel: string, abs: string): void {
  const kind = fileBinaryKind(abs);
  if (kind) {
    throw new ToolError(
      `${rel}: binary file (${kind}, ${formatSize(fs.statSync(abs).size)}); not searched. grep searches text files; use bash (e.g. strings ${rel} | grep ...) for binary content`,
    );
  }
}
