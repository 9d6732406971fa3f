// How every editing tool changes a file. Under a per-file lock: take a
// snapshot, let the tool plan the new content from it (pure), validate the
// syntax, check the file still holds the snapshot (another program may have
// written it), journal the old bytes for undo, write atomically and reconcile
// line IDs. A dry run stops after the diff. Nothing is written unless every
// step passes.
import fs from "node:fs";
import { regionDiff, regionDiffOfLines } from "../edit/regionDiff.js";
import type { Workspace } from "./workspace.js";
import { hashBytes } from "./fingerprint.js";
import { hashLine, hashLinesOf, idFromCounter, idListOf, statVersion } from "./lineIds.js";
import { scanText, windowPieces, windowedSource, type LargeText, type Window } from "../edit/largeText.js";
import type { Lines } from "../edit/lineRefs.js";
import { ToolError } from "../base/errors.js";
import {
  parseFile,
  serialize,
  serializeAgainstParts,
  normalizedText,
  type EditTarget,
  type FileModel,
} from "../edit/fileModel.js";
import { binaryKind, formatSize } from "./binary.js";
import { withFileLock } from "./fileLock.js";
import { Journal } from "./journal.js";
import { isRefusal } from "./confinedFs.js";
import { STATE_DIR_NAME } from "./state.js";
import { EDIT_MAX_BYTES, LINE_ID_MAX_BYTES, SYNTAX_CHECK_MAX_BYTES } from "../base/limits.js";

export interface Snapshot {
  /** The workspace root (programs rt runs for checks never come from inside it). */
  root: string;
  rel: string;
  abs: string;
  /** The bytes read, or null when the file does not exist yet. */
  bytes: Buffer | null;
  hash: string | null;
  model: FileModel;
  /** Line IDs of the snapshot's lines (files up to LINE_ID_MAX_BYTES). */
  ids?: string[];
  /** What the caller believes is at each line number (see staleNumber). */
  viewedIds?: ReadonlyArray<string | null>;
  mode?: number;
  /** Files over windowedEditFromBytes: the bytes and line offsets (see EditTarget.large); `model` and `ids` are made when read. */
  large?: LargeText;
  idList?: EditTarget["idList"];
  viewedList?: EditTarget["viewedList"];
}

/**
 * Files larger than this are edited through a window (largeText.ts) by the
 * planners that can: the size from which rt does not check syntax, so nothing
 * needs the whole text. Lowered only by tests, which compare both ways.
 */
let windowedEditFromBytes = SYNTAX_CHECK_MAX_BYTES;

/** Tests: edits of files over `bytes` go through a window; returns the function that restores the limit. */
export function setWindowedEditFromBytes(bytes: number): () => void {
  const before = windowedEditFromBytes;
  windowedEditFromBytes = bytes;
  return () => {
    windowedEditFromBytes = before;
  };
}

/** A snapshot of a large file: lines located, not decoded; the model and the ID strings made only if a planner reads them. */
function largeSnapshot(
  ws: Workspace,
  base: Omit<Snapshot, "model">,
  bytes: Buffer,
  stat: fs.Stats,
  withIds: boolean,
): Snapshot {
  const large = scanText(bytes);
  let model: FileModel | undefined;
  const snap = { ...base, large } as Snapshot;
  Object.defineProperty(snap, "model", { get: () => (model ??= parseFile(bytes)), enumerable: true });
  if (withIds && bytes.length <= LINE_ID_MAX_BYTES) {
    const version = statVersion(stat);
    // The stored IDs of this version, or (the file changed outside rt, or was never read) reconciled
    // from the hashes of its lines, read from the bytes.
    const runs =
      ws.lineIds.currentRuns(base.rel, base.hash!, large.count, { stat: version }) ??
      ws.lineIds.idsForHashes(base.rel, hashLinesOf(large), base.hash!, { stat: version });
    const viewed = ws.lineIds.viewedRuns(base.rel);
    snap.idList = idListOf(runs);
    if (viewed) snap.viewedList = idListOf(viewed);
    Object.defineProperty(snap, "ids", { get: () => runs.toArray(idFromCounter), enumerable: true });
    Object.defineProperty(snap, "viewedIds", { get: () => viewed?.toArray(idFromCounter), enumerable: true });
  }
  return snap;
}

/**
 * Does ahead what the first edit of `path` would do before writing, as far as it depends on the
 * file as it is: its parse for the syntax check (src/edit/validate.ts keeps the tree, and the
 * edit parses only what it changed). For a file the model just read, while the model thinks.
 * Never throws: a file that cannot be read or parsed is the edit's to report.
 */
export async function warmEditOf(ws: Workspace, path: string): Promise<void> {
  try {
    const r = ws.resolve(path);
    if (!r.exists) return;
    const bytes = ws.writer.readFile(r.rel);
    if (!bytes || bytes.length > SYNTAX_CHECK_MAX_BYTES || binaryKind(bytes)) return;
    const { warmParse } = await import("../edit/validate.js");
    await warmParse(r.rel, normalizedText(parseFile(bytes)));
  } catch {
    // Warming is an optimisation: the edit itself says what is wrong.
  }
}

export function takeSnapshot(
  ws: Workspace,
  path: string,
  opts: { mayCreate?: boolean; withIds?: boolean } = {},
): Snapshot {
  const r = ws.resolve(path);
  // rt's own state (sessions, journal, the project's config) is not a file to edit: a model that
  // rewrote its session could change which model and key `--continue` uses.
  if (r.rel === STATE_DIR_NAME || r.rel.startsWith(`${STATE_DIR_NAME}/`)) {
    throw new ToolError(
      `${r.rel}: ${STATE_DIR_NAME}/ is rt's state directory (sessions, the edit journal, the project's configuration); rt's tools do not write there. Edit the files of the project instead.`,
    );
  }
  if (!r.exists) {
    if (!opts.mayCreate)
      throw new ToolError(`${r.rel}: file not found; check the path (find or ls help), or use write to create a file`);
    return {
      root: ws.root,
      rel: r.rel,
      abs: r.abs,
      bytes: null,
      hash: null,
      model: parseFile(Buffer.alloc(0)),
      ids: [],
    };
  }
  const st = fs.statSync(r.abs);
  if (st.isDirectory()) throw new ToolError(`${r.rel}: is a directory, not a file`);
  if (!st.isFile()) throw new ToolError(`${r.rel}: not a regular file`);
  if (st.size > EDIT_MAX_BYTES) {
    throw new ToolError(
      `${r.rel}: ${formatSize(st.size)} is too large to edit (rt edits files up to ${formatSize(EDIT_MAX_BYTES)}, which it holds in memory); use other tools for this file`,
    );
  }
  // The bytes and the mode come from one descriptor opened through the confined
  // writer (the path walked again from the root, no symlink followed): a
  // directory on the way swapped for a symlink since `resolve` cannot make the
  // snapshot, the journal's saved copy and the written file an outside file's.
  const onDisk = ws.writer.readFileStat(r.rel, { maxBytes: EDIT_MAX_BYTES });
  if (!onDisk) throw new ToolError(`${r.rel}: file not found (it disappeared while rt was reading it)`);
  // An editor's unsaved text of the file is what is edited (rt acp); the disk gives the mode.
  const buffer = ws.options.editorBuffers?.get(r.rel);
  const found = buffer ? { ...onDisk, bytes: buffer } : onDisk;
  const bytes = found.bytes;
  const kind = binaryKind(bytes);
  if (kind)
    throw new ToolError(`${r.rel}: binary file (${kind}, ${formatSize(bytes.length)}); rt edits text files only`);
  const hash = hashBytes(bytes);
  if (bytes.length > windowedEditFromBytes) {
    return largeSnapshot(
      ws,
      { root: ws.root, rel: r.rel, abs: r.abs, bytes, hash, mode: found.stat.mode & 0o7777 },
      bytes,
      found.stat,
      opts.withIds === true,
    );
  }
  const model = parseFile(bytes);
  const snap: Snapshot = { root: ws.root, rel: r.rel, abs: r.abs, bytes, hash, model, mode: found.stat.mode & 0o7777 };
  if (opts.withIds && bytes.length <= LINE_ID_MAX_BYTES) {
    snap.ids = ws.lineIds.idsFor(r.rel, model.lines, hash, { stat: statVersion(found.stat) });
    snap.viewedIds = ws.lineIds.viewed(r.rel);
  }
  return snap;
}

export interface Plan {
  model: FileModel;
  /** 1-based first and last line of the changed region in the new text (for the summary). */
  start: number;
  end: number;
  /** Extra result fields (tier, relocations...). */
  metadata?: Record<string, unknown>;
  /** Lines added to the output after the ✓ line (notes such as relocations). */
  notes?: string[];
  /** The range named on the ✓ line when it is not start-end (a deletion names the lines it removed). */
  summaryRange?: { start: number; end: number };
  /**
   * The changed regions in the new text when there are several (edit_lines with several changes):
   * each is shown with its own context, not everything between the first and the last.
   */
  regions?: Array<{ start: number; end: number }>;
  /**
   * A plan of a large snapshot's window (largeText.ts): `model` holds the new
   * lines of lines [first, first + oldCount) only; the rest are unchanged.
   */
  window?: Window;
}

export interface ApplyOptions {
  tool: string;
  dryRun?: boolean;
  force?: boolean;
  showDiff?: boolean;
  /** Re-plan once against the new content if the file changed between snapshot and write (safe for ID-based edits). */
  replanOnConflict?: boolean;
  withIds?: boolean;
  mayCreate?: boolean;
  /** Verb for the summary line when the file existed ("Edited" by default, "Wrote"); a new file is always "Created". */
  verb?: string;
}

export interface ApplyResult {
  output: string;
  metadata: Record<string, unknown>;
}

/** jsdiff's patch without the "Index:"/"====" preamble lines it adds. */
function withoutPreamble(patch: string): string {
  const lines = patch.split("\n", 3);
  const skip = lines.slice(0, 2).reduce((n, l, i) => (i === 0 || /^=+$/.test(l) ? n + l.length + 1 : n), 0);
  return patch.slice(skip);
}

export function unifiedDiff(rel: string, before: string, after: string): string {
  // Diffed on the changed region only (same text as jsdiff's whole-file patch).
  return withoutPreamble(regionDiff(`a/${rel}`, `b/${rel}`, before, after, 3));
}

/** The text of a model split at "\n", as `normalizedText(m).split("\n")` gives it, without building the text. */
function splitText(m: FileModel): readonly string[] {
  if (m.lines.length === 0) return [""];
  return m.finalNewline ? m.lines.concat([""]) : m.lines;
}

/** unifiedDiff of two models' normalized texts, from their lines (a 32 MB file is never joined into one string). */
export function modelDiff(rel: string, before: FileModel, after: FileModel): string {
  return withoutPreamble(regionDiffOfLines(`a/${rel}`, `b/${rel}`, splitText(before), splitText(after), 3));
}

/**
 * The diff of a window plan: modelDiff of the whole texts, computed on the
 * window (it holds WINDOW_MARGIN_LINES unchanged lines around the changes, more
 * than the diff's margin and context; at the file's end, the end as it is).
 */
function windowDiff(rel: string, t: LargeText, w: Window, model: FileModel): string {
  const atEnd = w.first + w.oldCount === t.count;
  const a = atEnd ? splitText(w.old) : w.old.lines;
  const b = atEnd ? splitText(model) : model.lines;
  return withoutPreamble(regionDiffOfLines(`a/${rel}`, `b/${rel}`, a, b, 3, w.first));
}

/** A window plan's whole new model (what a check of the whole text needs; small files only). */
function wholeModel(old: FileModel, w: Window, model: FileModel): FileModel {
  const end = w.first + w.oldCount;
  const atEnd = end === old.lines.length;
  return {
    ...old,
    lines: old.lines.slice(0, w.first).concat(model.lines, old.lines.slice(end)),
    raw: old.raw.slice(0, w.first).concat(model.raw, old.raw.slice(end)),
    eols: old.eols.slice(0, w.first).concat(model.eols, old.eols.slice(end)),
    finalNewline: atEnd ? model.finalNewline : old.finalNewline,
  };
}

/** Whether `pieces`, one after another, are exactly `bytes`. */
function sameBytes(pieces: readonly Buffer[], bytes: Buffer): boolean {
  let at = 0;
  for (const piece of pieces) {
    if (at + piece.length > bytes.length) return false;
    // A piece cut from `bytes` at this very place is equal without comparing it.
    const samePlace = piece.buffer === bytes.buffer && piece.byteOffset === bytes.byteOffset + at;
    if (!samePlace && !piece.equals(bytes.subarray(at, at + piece.length))) return false;
    at += piece.length;
  }
  return at === bytes.length;
}

/** Whether the file `rel` still holds exactly `bytes` (null: does not exist), compared a chunk at a time. */
function stillHolds(ws: Workspace, rel: string, bytes: Buffer | null): boolean {
  // Edited from an editor's buffer: the buffer is the version to hold (the write saves it, with the edit).
  const buffer = ws.options.editorBuffers?.get(rel);
  if (buffer) return bytes !== null && buffer.equals(bytes);
  // Opened like the snapshot, through the confined writer: a symlink met on the way is refused
  // (thrown: nothing is written); a file gone is a change unless there was none.
  let fd: number;
  try {
    fd = ws.writer.openRead(rel);
  } catch (e) {
    if (isRefusal(e)) throw e;
    return bytes === null;
  }
  try {
    if (bytes === null || fs.fstatSync(fd).size !== bytes.length) return false;
    const chunk = Buffer.allocUnsafe(Math.min(COMPARE_CHUNK_BYTES, Math.max(1, bytes.length)));
    for (let at = 0; at < bytes.length; ) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, bytes.length - at), at);
      if (n <= 0 || !chunk.subarray(0, n).equals(bytes.subarray(at, at + n))) return false;
      at += n;
    }
    // Nothing past the end either (the file may have grown since fstat).
    return fs.readSync(fd, chunk, 0, 1, bytes.length) === 0;
  } finally {
    fs.closeSync(fd);
  }
}

const COMPARE_CHUNK_BYTES = 1024 * 1024;

const REGION_CONTEXT = 3;

/** Lines shown around an edit: the changed lines and REGION_CONTEXT lines either side. */
function regionBounds(total: number, start: number, end: number): { from: number; to: number } {
  return {
    from: Math.max(1, Math.min(start, total) - REGION_CONTEXT),
    to: Math.min(total, Math.max(end, start) + REGION_CONTEXT),
  };
}

/**
 * The lines shown after an edit: each changed region with REGION_CONTEXT lines
 * either side, regions whose context meets merged into one window, in order.
 */
export function shownWindows(
  total: number,
  regions: ReadonlyArray<{ start: number; end: number }>,
): Array<{ from: number; to: number }> {
  if (total === 0) return [];
  const windows = regions.map((r) => regionBounds(total, r.start, r.end)).sort((a, b) => a.from - b.from);
  const merged: Array<{ from: number; to: number }> = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last && w.from <= last.to + 1) last.to = Math.max(last.to, w.to);
    else merged.push({ ...w });
  }
  return merged;
}

/** The edited region(s) with a few lines of context, numbered; separate windows are parted by "...". */
export function regionView(
  lines: Lines,
  start: number,
  end: number,
  regions?: ReadonlyArray<{ start: number; end: number }>,
): string {
  if (lines.length === 0) return "(the file is now empty)";
  const out: string[] = [];
  for (const { from, to } of shownWindows(lines.length, regions?.length ? regions : [{ start, end }])) {
    if (out.length > 0) out.push("  ...");
    for (let i = from; i <= to; i++) out.push(`${String(i).padStart(4)}: ${lines.at(i - 1)}`);
  }
  return out.join("\n");
}

/** Plans an edit from a snapshot; may be async (a planner that validates readings of its content first). */
export type Planner = (snap: Snapshot) => Plan | Promise<Plan>;

export async function applyEdit(
  ws: Workspace,
  target: string,
  plan: Planner,
  opts: ApplyOptions,
): Promise<ApplyResult> {
  const r = ws.resolve(target);
  // Held from reading to writing: concurrent rt edits of one file run one after the other.
  return withFileLock(ws.state, r.rel, r.abs, () => applyLocked(ws, target, plan, opts));
}

async function applyLocked(ws: Workspace, target: string, plan: Planner, opts: ApplyOptions): Promise<ApplyResult> {
  let snap = takeSnapshot(ws, target, { mayCreate: opts.mayCreate, withIds: opts.withIds });
  let p = await plan(snap);
  const notes: string[] = [];
  for (let attempt = 0; ; attempt++) {
    // The unchanged lines at the start and end are copied from the bytes read (a 32 MB file is not re-encoded for one line).
    // In pieces: the kept head and tail of the bytes read, and the new middle (never joined: a copy of 32 MB costs).
    const w = snap.large ? p.window : undefined;
    const newBytes = w
      ? windowPieces(snap.large!, w, p.model, serialize)
      : snap.bytes
        ? serializeAgainstParts(snap.model, snap.bytes, p.model)
        : [serialize(p.model)];
    // The new text's lines: through the window, or the model's.
    const newLines: Lines = w ? windowedSource(snap.large!, w, p.model) : p.model.lines;
    const whole = () => (w ? wholeModel(snap.model, w, p.model) : p.model);
    const newLength = newBytes.reduce((n, b) => n + b.length, 0);
    const largest = Math.max(snap.bytes?.length ?? 0, newLength);
    if (!opts.force && largest > SYNTAX_CHECK_MAX_BYTES) {
      // A parse of a file this size takes seconds and gigabytes; say it was not checked.
      notes.push(
        `note: syntax not checked: ${snap.rel} is ${formatSize(largest)}, and rt checks the syntax of files up to ${formatSize(SYNTAX_CHECK_MAX_BYTES)}`,
      );
    } else if (!opts.force) {
      const beforeText = normalizedText(snap.model);
      const afterText = normalizedText(whole());
      const { validateEdit, formatProblems } = await import("../edit/validate.js");
      const v = await validateEdit(snap.rel, beforeText, afterText, { root: ws.root });
      if (v.introduced.length > 0) {
        throw new ToolError(
          `edit rejected: it would add ${v.introduced.length === 1 ? "a syntax error" : `${v.introduced.length} syntax errors`} to ${snap.rel} (${v.language}); the file is unchanged.\n${formatProblems(v, afterText)}\nFix the new content, or pass force: true (--force) to write it anyway.`,
          { validation_failed: true },
        );
      }
      // A language rt parses whose check could not run is worth saying; plain text is not.
      if (!v.checked && v.language) notes.push(`note: syntax not checked: ${v.reason ?? "unknown reason"}`);
    }
    const diff = w ? windowDiff(snap.rel, snap.large!, w, p.model) : modelDiff(snap.rel, snap.model, p.model);
    const unchanged = snap.bytes !== null && sameBytes(newBytes, snap.bytes);
    const metadata: Record<string, unknown> = { path: snap.rel, start_line: p.start, end_line: p.end, ...p.metadata };
    if (opts.dryRun || unchanged) {
      const head = unchanged
        ? `No change: ${snap.rel} already has this content`
        : `Dry run: ${snap.rel} not modified. The patch:`;
      return {
        output: unchanged ? head : `${head}\n${diff}`,
        metadata: { ...metadata, diff, dry_run: !!opts.dryRun, changed: false },
      };
    }
    // Another program (not rt: rt edits hold the lock) may have written the file meanwhile.
    if (!stillHolds(ws, snap.rel, snap.bytes)) {
      if (opts.replanOnConflict && attempt === 0) {
        snap = takeSnapshot(ws, target, { mayCreate: opts.mayCreate, withIds: opts.withIds });
        p = await plan(snap);
        continue;
      }
      throw new ToolError(
        `${snap.rel} changed since it was read (another program wrote it); nothing was written. Re-read the file and retry.`,
      );
    }
    const newHash = hashBytes(newBytes);
    const entry = new Journal(ws.state).record(snap.rel, snap.bytes, newHash, opts.tool, snap.mode);
    // The confined writer: `snap.rel` is walked from the root again, never through a symlink.
    try {
      ws.writer.writeAtomic(snap.rel, newBytes, { mode: snap.mode, mkdirs: true });
    } catch (e) {
      // Nothing was written (a full disk, a symlink met on the way): neither is the journal entry.
      try {
        entry.rollback();
      } catch {
        /* the journal cannot be written either: undo then refuses that entry, it never restores wrong bytes */
      }
      throw e;
    }
    entry.commit();
    ws.options.editorBuffers?.delete(snap.rel);
    if (newLength <= LINE_ID_MAX_BYTES) {
      // The caller is shown the edited region below: those numbers are current for it now (one write).
      const shown = shownWindows(newLines.length, p.regions?.length ? p.regions : [{ start: p.start, end: p.end }]);
      let stat: string | undefined;
      try {
        stat = statVersion(fs.statSync(snap.abs));
      } catch {
        stat = undefined;
      }
      const shownRange = shown.flatMap(({ from, to }) => Array.from({ length: to - from + 1 }, (_, i) => from + i));
      // A window plan whose IDs before the edit are stored (the usual case: the snapshot made them,
      // or rt's previous edit did) reconciles the window alone; otherwise every line, as for any file.
      const windowed =
        w !== undefined &&
        snap.hash !== null &&
        ws.lineIds.afterWindowEdit(
          snap.rel,
          snap.hash,
          newHash,
          { oldTotal: snap.large!.count, first: w.first, oldLines: w.old.lines, newLines: p.model.lines },
          { shownRange, ...(stat ? { stat } : {}) },
        );
      if (!windowed && w) {
        // The stored IDs are of another version (the file changed outside rt, or they were never
        // made): every new line's hash, from the old bytes outside the window and the window's lines.
        const t = snap.large!;
        const before = hashLinesOf(t);
        const hashes = new Float64Array(t.count - w.oldCount + p.model.lines.length);
        hashes.set(before.subarray(0, w.first));
        p.model.lines.forEach((line, i) => (hashes[w.first + i] = hashLine(line)));
        hashes.set(before.subarray(w.first + w.oldCount), w.first + p.model.lines.length);
        ws.lineIds.idsForHashes(snap.rel, hashes, newHash, { shownRange, ...(stat ? { stat } : {}) });
      } else if (!windowed) {
        ws.lineIds.idsFor(snap.rel, whole().lines, newHash, {
          shownRange,
          ...(snap.hash !== null ? { previous: { textHash: snap.hash, lines: snap.model.lines } } : {}),
          ...(stat ? { stat } : {}),
        });
      }
    }
    const verb = snap.bytes === null ? "Created" : (opts.verb ?? "Edited");
    const named = p.summaryRange ?? p;
    const span = (r: { start: number; end: number }) => (r.end > r.start ? `${r.start}-${r.end}` : `${r.start}`);
    const range =
      !p.summaryRange && p.regions && p.regions.length > 1
        ? p.regions.map(span).join(",")
        : named.end >= named.start
          ? `${named.start}-${named.end}`
          : `${named.start}`;
    const showDiff = opts.showDiff || /^(1|true|yes|on)$/i.test(ws.env.RT_AUTO_DIFF ?? ws.env.RAGIX_AUTO_DIFF ?? "");
    const parts = [
      `✓ ${verb} ${snap.rel}:${range}`,
      ...(p.notes ?? []),
      ...notes,
      regionView(newLines, p.start, p.end, p.regions),
    ];
    // `git diff -- FILE` when git tracks the file (every change since the last
    // `git add`), the edit's own diff otherwise.
    let gitDiff: string | undefined;
    if (showDiff) {
      const { gitDiffOf } = await import("./gitDiff.js");
      const g = gitDiffOf(ws.root, snap.rel);
      if ("diff" in g) {
        gitDiff = g.diff;
        parts.push(
          g.diff === "" ? `git diff -- ${snap.rel}: no difference from git's index` : g.diff.replace(/\n$/, ""),
        );
      } else {
        parts.push(diff);
      }
    }
    return {
      output: parts.join("\n"),
      metadata: { ...metadata, diff, ...(gitDiff !== undefined ? { git_diff: gitDiff } : {}), changed: true },
    };
  }
}
