// Shared by edit_lines, edit_range and insert_at: resolve line references
// (numbers, IDs, N:ID) against one snapshot, apply every change together
// through the workspace's edit pipeline, and describe what happened.
import { z } from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { applyEdit, type Snapshot } from "../workspace/applyEdit.js";
import { withLines, splitContent, normalizedText } from "../edit/fileModel.js";
import { indentCandidates } from "../edit/indent.js";
import { chooseReading } from "../edit/chooseReading.js";
import { resolveRef, parseRef, staleNumber, type LineRef } from "../edit/lineRefs.js";
import { applyLineChanges, type LineChange } from "../edit/lineEdits.js";
import { ToolError, ok, type ToolResult } from "./types.js";

export const lineRef = z
  .union([z.number().int(), z.string()])
  .describe('A line number (12), a line ID from read with ids (k3f9), or both (12:k3f9: the ID wins if the line moved)');

/** `indent_level`: the new content's base indentation, in columns (overrides re-indentation). */
export const indentLevel = z.number().int().min(0).optional();

/** Options every editing tool accepts. */
export const editOptions = {
  dry_run: z.boolean().optional().describe("Return the unified diff without writing anything"),
  force: z.boolean().optional().describe("Write even if the edit adds syntax errors"),
  show_diff: z.boolean().optional().describe("Add the file's unified diff to the result"),
};

export interface ChangeSpec {
  kind: "replace" | "insert-before" | "insert-after" | "delete";
  from: LineRef;
  to?: LineRef;
  content?: string;
  indentLevel?: number;
}

function usesIds(specs: ChangeSpec[]): boolean {
  return specs.some((s) => [s.from, s.to].some((r) => r !== undefined && (() => { const p = parseRef(r); return !("error" in p) && p.id !== undefined; })()));
}

async function planChanges(snap: Snapshot, specs: ChangeSpec[], force: boolean) {
  const lines = snap.model.lines;
  const changes: LineChange[] = [];
  const notes: string[] = [];
  const relocations: Array<{ ref: string; from: number; to: number }> = [];
  const resolve = (ref: LineRef, o: { allowEnd?: boolean; allowZero?: boolean } = {}) => {
    const r = resolveRef(ref, lines, snap.ids, o);
    if ("error" in r) throw new ToolError(r.error);
    const parsed = parseRef(ref);
    if (!("error" in parsed) && parsed.id === undefined) {
      const stale = staleNumber(r.line, snap.viewedIds, snap.ids, snap.rel, lines);
      if (stale) throw new ToolError(stale);
    }
    // A reference given twice (start and end of one line) is reported once.
    if (r.relocatedFrom !== undefined && !relocations.some((x) => x.ref === String(ref) && x.to === r.line)) {
      relocations.push({ ref: String(ref), from: r.relocatedFrom, to: r.line });
      notes.push(`note: ${ref} was relocated to line ${r.line} (the file changed since it was read)`);
    }
    return r.line;
  };
  for (const s of specs) {
    const content = s.content === undefined ? [] : splitContent(s.content);
    if (s.kind === "insert-before" || s.kind === "insert-after") {
      const at = resolve(s.from, { allowEnd: s.kind === "insert-before", allowZero: s.kind === "insert-after" });
      const before = s.kind === "insert-before" ? at : at + 1;
      changes.push({ start: before, end: before - 1, content, indentLevel: s.indentLevel });
      continue;
    }
    const start = resolve(s.from);
    const end = s.to === undefined ? start : resolve(s.to);
    if (end < start) {
      throw new ToolError(`range ${start}-${end} is reversed: the end line must not come before the start line (the file has ${lines.length} lines)`);
    }
    changes.push({ start, end, content: s.kind === "delete" ? [] : content, indentLevel: s.indentLevel });
  }
  // Each change's content may be placed several ways (indent.ts); the first
  // reading that keeps the file valid and its blocks intact is written.
  const readings = changes.map((c) =>
    c.content.length === 0 ? [{ lines: c.content, why: "" }] : indentCandidates(c.content, { lines, at: c.start - 1, replacing: c.end - c.start + 1, indentLevel: c.indentLevel }),
  );
  const pick = changes.map(() => 0);
  const build = () => applyLineChanges(lines, changes.map((c, k) => ({ ...c, content: readings[k][pick[k]].lines, verbatim: true })));
  const first = build();
  if ("error" in first) throw new ToolError(first.error);
  if (!force) {
    const before = normalizedText(snap.model);
    for (let k = 0; k < changes.length; k++) {
      if (readings[k].length < 2) continue;
      const texts = readings[k].map((r, j) => {
        pick[k] = j;
        const a = build();
        return { text: "error" in a ? before : normalizedText(withLines(snap.model, a.lines)), why: r.why };
      });
      pick[k] = 0;
      const choice = await chooseReading(snap.rel, before, texts, { root: snap.root });
      if ("refused" in choice) throw new ToolError(`${changes.length > 1 ? `change ${k + 1}: ` : ""}${choice.refused}`, { reason: "indentation" });
      pick[k] = choice.index;
      if (choice.note) notes.push(choice.note);
    }
  }
  // Content that was not kept as written: say where it went and why (issue 10).
  readings.forEach((r, k) => {
    const why = r[pick[k]].why;
    if (why && !why.startsWith("kept as written") && !why.startsWith("indent_level") && !notes.some((n) => n.startsWith("note: indentation"))) {
      notes.push(`note: indentation ${why}${r.length > 1 && pick[k] === 0 ? " (the content's own indentation is not a level open there)" : ""}`);
    }
  });
  const applied = build();
  if ("error" in applied) throw new ToolError(applied.error);
  // One deletion: the result names the lines removed (✓ Edited a.py:12-14), as
  // the new text has no lines left to name there.
  const only = changes.length === 1 && changes[0].content.length === 0 && changes[0].end >= changes[0].start ? changes[0] : undefined;
  const deleted = only ? { start: only.start, end: only.end } : undefined;
  return {
    model: withLines(snap.model, applied.lines),
    start: applied.start,
    end: applied.end,
    notes,
    ...(deleted ? { summaryRange: deleted } : {}),
    metadata: {
      changes_applied: specs.length,
      ...(deleted ? { start_line: deleted.start, end_line: deleted.end, deleted_lines: deleted.end - deleted.start + 1 } : {}),
      ...(relocations.length ? { relocated: relocations } : {}),
    },
  };
}

export async function runLineChanges(
  workspace: Workspace,
  path: string,
  specs: ChangeSpec[],
  opts: { tool: string; dry_run?: boolean; force?: boolean; show_diff?: boolean },
): Promise<ToolResult> {
  if (specs.length === 0) throw new ToolError("no changes given");
  const ids = usesIds(specs);
  const r = await applyEdit(workspace, path, (snap) => planChanges(snap, specs, opts.force === true), {
    tool: opts.tool,
    dryRun: opts.dry_run,
    force: opts.force,
    showDiff: opts.show_diff,
    withIds: true,
    replanOnConflict: ids,
  });
  return ok(r.output, r.metadata);
}
