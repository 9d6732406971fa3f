// How every editing tool changes a file. Under a per-file lock: take a
// snapshot, let the tool plan the new content from it (pure), validate the
// syntax, check the file still holds the snapshot (another program may have
// written it), journal the old bytes for undo, write atomically and reconcile
// line IDs. A dry run stops after the diff. Nothing is written unless every
// step passes.
import fs from "node:fs";
import { regionDiff } from "../edit/regionDiff.js";
import type { Workspace } from "./workspace.js";
import { hashBytes } from "./fingerprint.js";
import { ToolError } from "../errors.js";
import { parseFile, serialize, normalizedText, type FileModel } from "../edit/fileModel.js";
import { binaryKind, formatSize } from "./binary.js";
import { withFileLock } from "./fileLock.js";
import { Journal } from "./journal.js";
import { isRefusal } from "./confinedFs.js";
import { STATE_DIR_NAME } from "./state.js";
import { EDIT_MAX_BYTES, LINE_ID_MAX_BYTES } from "../limits.js";

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
}

export function takeSnapshot(ws: Workspace, path: string, opts: { mayCreate?: boolean; withIds?: boolean } = {}): Snapshot {
  const r = ws.resolve(path);
  // rt's own state (sessions, journal, the project's config) is not a file to edit: a model that
  // rewrote its session could change which model and key `--continue` uses.
  if (r.rel === STATE_DIR_NAME || r.rel.startsWith(`${STATE_DIR_NAME}/`)) {
    throw new ToolError(`${r.rel}: ${STATE_DIR_NAME}/ is rt's state directory (sessions, the edit journal, the project's configuration); rt's tools do not write there. Edit the files of the project instead.`);
  }
  if (!r.exists) {
    if (!opts.mayCreate) throw new ToolError(`${r.rel}: file not found; check the path (find or ls help), or use write to create a file`);
    return { root: ws.root, rel: r.rel, abs: r.abs, bytes: null, hash: null, model: parseFile(Buffer.alloc(0)), ids: [] };
  }
  const st = fs.statSync(r.abs);
  if (st.isDirectory()) throw new ToolError(`${r.rel}: is a directory, not a file`);
  if (!st.isFile()) throw new ToolError(`${r.rel}: not a regular file`);
  if (st.size > EDIT_MAX_BYTES) {
    throw new ToolError(`${r.rel}: ${formatSize(st.size)} is too large to edit (rt edits files up to ${formatSize(EDIT_MAX_BYTES)}, which it holds in memory); use other tools for this file`);
  }
  // The bytes and the mode come from one descriptor opened through the confined
  // writer (the path walked again from the root, no symlink followed): a
  // directory on the way swapped for a symlink since `resolve` cannot make the
  // snapshot, the journal's saved copy and the written file an outside file's.
  const found = ws.writer.readFileStat(r.rel, { maxBytes: EDIT_MAX_BYTES });
  if (!found) throw new ToolError(`${r.rel}: file not found (it disappeared while rt was reading it)`);
  const bytes = found.bytes;
  const kind = binaryKind(bytes);
  if (kind) throw new ToolError(`${r.rel}: binary file (${kind}, ${formatSize(bytes.length)}); rt edits text files only`);
  const model = parseFile(bytes);
  const hash = hashBytes(bytes);
  const snap: Snapshot = { root: ws.root, rel: r.rel, abs: r.abs, bytes, hash, model, mode: found.stat.mode & 0o7777 };
  if (opts.withIds && bytes.length <= LINE_ID_MAX_BYTES) {
    snap.ids = ws.lineIds.idsFor(r.rel, model.lines, hash);
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
  /** Verb for the summary line ("Edited", "Created", "Wrote"). */
  verb?: string;
}

export interface ApplyResult {
  output: string;
  metadata: Record<string, unknown>;
}

export function unifiedDiff(rel: string, before: string, after: string): string {
  // Diffed on the changed region only (same text as jsdiff's whole-file patch).
  return regionDiff(`a/${rel}`, `b/${rel}`, before, after, 3)
    .split("\n")
    .slice(1) // drop the "Index:"/"====" preamble lines jsdiff adds
    .filter((l) => !/^=+$/.test(l))
    .join("\n");
}

const REGION_CONTEXT = 3;

/** Lines shown around an edit: the changed lines and REGION_CONTEXT lines either side. */
function regionBounds(total: number, start: number, end: number): { from: number; to: number } {
  return { from: Math.max(1, Math.min(start, total) - REGION_CONTEXT), to: Math.min(total, Math.max(end, start) + REGION_CONTEXT) };
}

/** The edited region with a few lines of context, numbered (seed 000 §10.4). */
export function regionView(lines: string[], start: number, end: number): string {
  if (lines.length === 0) return "(the file is now empty)";
  const { from, to } = regionBounds(lines.length, start, end);
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(`${String(i).padStart(4)}: ${lines[i - 1]}`);
  return out.join("\n");
}

/** Plans an edit from a snapshot; may be async (a planner that validates readings of its content first). */
export type Planner = (snap: Snapshot) => Plan | Promise<Plan>;

export async function applyEdit(ws: Workspace, target: string, plan: Planner, opts: ApplyOptions): Promise<ApplyResult> {
  const r = ws.resolve(target);
  // Held from reading to writing: concurrent rt edits of one file run one after the other.
  return withFileLock(ws.state, r.rel, r.abs, () => applyLocked(ws, target, plan, opts));
}

async function applyLocked(ws: Workspace, target: string, plan: Planner, opts: ApplyOptions): Promise<ApplyResult> {
  let snap = takeSnapshot(ws, target, { mayCreate: opts.mayCreate, withIds: opts.withIds });
  let p = await plan(snap);
  const notes: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const newBytes = serialize(p.model);
    const beforeText = normalizedText(snap.model);
    const afterText = normalizedText(p.model);
    if (!opts.force) {
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
    const diff = unifiedDiff(snap.rel, beforeText, afterText);
    const unchanged = snap.bytes !== null && newBytes.equals(snap.bytes);
    const metadata: Record<string, unknown> = { path: snap.rel, start_line: p.start, end_line: p.end, ...p.metadata };
    if (opts.dryRun || unchanged) {
      const head = unchanged ? `No change: ${snap.rel} already has this content` : `Dry run: ${snap.rel} not modified. The patch:`;
      return { output: unchanged ? head : `${head}\n${diff}`, metadata: { ...metadata, diff, dry_run: !!opts.dryRun, changed: false } };
    }
    // Another program (not rt: rt edits hold the lock) may have written the file meanwhile.
    // Read like the snapshot (confined); a symlink met on the way is refused, and nothing is written.
    let current: Buffer | null = null;
    try {
      current = ws.writer.readFile(snap.rel) ?? null;
    } catch (e) {
      if (isRefusal(e)) throw e;
      current = null;
    }
    // Compared byte for byte (native, no hashing of the whole file again).
    if (current === null ? snap.bytes !== null : snap.bytes === null || !current.equals(snap.bytes)) {
      if (opts.replanOnConflict && attempt === 0) {
        snap = takeSnapshot(ws, target, { mayCreate: opts.mayCreate, withIds: opts.withIds });
        p = await plan(snap);
        continue;
      }
      throw new ToolError(`${snap.rel} changed since it was read (another program wrote it); nothing was written. Re-read the file and retry.`);
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
    if (newBytes.length <= LINE_ID_MAX_BYTES) {
      // The caller is shown the edited region below: those numbers are current for it now (one write).
      ws.lineIds.idsFor(snap.rel, p.model.lines, newHash, { shownRange: regionBounds(p.model.lines.length, p.start, p.end) });
    }
    const verb = opts.verb ?? (snap.bytes === null ? "Created" : "Edited");
    const named = p.summaryRange ?? p;
    const range = named.end >= named.start ? `${named.start}-${named.end}` : `${named.start}`;
    const showDiff = opts.showDiff || /^(1|true|yes|on)$/i.test(ws.env.RT_AUTO_DIFF ?? ws.env.RAGIX_AUTO_DIFF ?? "");
    const parts = [`✓ ${verb} ${snap.rel}:${range}`, ...(p.notes ?? []), ...notes, regionView(p.model.lines, p.start, p.end)];
    if (showDiff) parts.push(diff);
    return { output: parts.join("\n"), metadata: { ...metadata, diff, changed: true } };
  }
}
