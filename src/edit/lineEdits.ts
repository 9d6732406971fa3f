// Line-addressed changes: references resolved against one snapshot's lines,
// checked for overlaps, content placed, and applied together.
import { ToolError } from "../base/errors.js";
import { withLines, splitContent, normalizedText, type EditTarget } from "./fileModel.js";
import { fitIndentation, indentCandidates } from "./indent.js";
import { chooseReading } from "./chooseReading.js";
import { resolveRef, parseRef, staleNumber, type LineRef } from "./lineRefs.js";
import { lineSource, windowModel, WINDOW_MARGIN_LINES, type Window } from "./largeText.js";
import { INDENT_WINDOW_LINES, SYNTAX_CHECK_MAX_BYTES } from "../base/limits.js";

export interface LineChange {
  /** 1-based first line replaced or deleted; for an insertion, the line the content goes before. */
  start: number;
  /** Last line replaced or deleted (inclusive); start - 1 for an insertion. */
  end: number;
  content: string[];
  indentLevel?: number;
  /** Skip re-indentation (content is taken verbatim). */
  verbatim?: boolean;
}

export interface AppliedLines {
  lines: string[];
  /** First and last line of the changed region in the new text, covering every change. */
  start: number;
  end: number;
  /** Each change's own lines in the new text, in order (a deletion: end = start - 1, where the lines were). */
  regions: Array<{ start: number; end: number }>;
}

/** Changes sorted by position, or the first two that overlap. */
function sortedChanges(changes: LineChange[]): LineChange[] | { error: string } {
  const sorted = [...changes].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (b.start <= a.end || (b.start === a.start && a.end < a.start && b.end < b.start)) {
      return {
        error: `changes overlap: lines ${a.start}-${Math.max(a.start, a.end)} and ${b.start}-${Math.max(b.start, b.end)}; give each line to at most one change`,
      };
    }
  }
  return sorted;
}

export function applyLineChanges(lines: string[], changes: LineChange[]): AppliedLines | { error: string } {
  const sorted = sortedChanges(changes);
  if ("error" in sorted) return sorted;
  // The new lines as pieces (unchanged runs sliced, changes' content), joined once: a long
  // file is copied in a few block moves, not pushed a line at a time.
  const pieces: string[][] = [];
  let next = 1;
  let offset = 0;
  let first = Infinity;
  let last = -Infinity;
  const regions: Array<{ start: number; end: number }> = [];
  for (const c of sorted) {
    if (next < c.start) pieces.push(lines.slice(next - 1, c.start - 1));
    next = Math.max(next, c.start);
    const content = c.verbatim
      ? c.content
      : fitIndentation(c.content, {
          lines,
          at: c.start - 1,
          replacing: c.end - c.start + 1,
          indentLevel: c.indentLevel,
        });
    const newStart = c.start + offset;
    pieces.push(content);
    first = Math.min(first, newStart);
    last = Math.max(last, newStart + content.length - 1);
    regions.push({ start: newStart, end: newStart + content.length - 1 });
    offset += content.length - (c.end - c.start + 1);
    next = c.end + 1;
  }
  if (next <= lines.length) pieces.push(lines.slice(next - 1));
  const out = ([] as string[]).concat(...pieces);
  return { lines: out, start: first === Infinity ? 1 : first, end: last, regions };
}

export interface ChangeSpec {
  kind: "replace" | "insert-before" | "insert-after" | "delete";
  from: LineRef;
  to?: LineRef;
  content?: string;
  indentLevel?: number;
}

/** Whether any reference names a line ID (then a concurrent change is re-planned, not refused). */
export function changesUseIds(specs: ChangeSpec[]): boolean {
  return specs.some((s) =>
    [s.from, s.to].some(
      (r) =>
        r !== undefined &&
        (() => {
          const p = parseRef(r);
          return !("error" in p) && p.id !== undefined;
        })(),
    ),
  );
}

/**
 * The plan of line changes (edit_lines, edit_range, insert_at): every reference
 * resolved against the same lines (an ID followed when its line moved, a stale
 * number refused), each change's content placed by the first reading that keeps
 * the file valid, all applied together.
 */
export async function planLineChanges(snap: EditTarget, specs: ChangeSpec[], force: boolean) {
  // A large file's lines are decoded only where read; the changes are applied to a window of them.
  const large = snap.large;
  const lines = large ? lineSource(large) : snap.model.lines;
  const ids = large ? snap.idList : snap.ids;
  const viewedIds = large ? snap.viewedList : snap.viewedIds;
  const changes: LineChange[] = [];
  const notes: string[] = [];
  const relocations: Array<{ ref: string; from: number; to: number }> = [];
  const resolve = (ref: LineRef, o: { allowEnd?: boolean; allowZero?: boolean } = {}) => {
    const r = resolveRef(ref, lines, ids, o);
    if ("error" in r) throw new ToolError(r.error);
    const parsed = parseRef(ref);
    if (!("error" in parsed) && parsed.id === undefined) {
      const stale = staleNumber(r.line, viewedIds, ids, snap.rel, lines);
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
      throw new ToolError(
        `range ${start}-${end} is reversed: the end line must not come before the start line (the file has ${lines.length} lines)`,
      );
    }
    changes.push({ start, end, content: s.kind === "delete" ? [] : content, indentLevel: s.indentLevel });
  }
  // Each change's content may be placed several ways (indent.ts); the first
  // reading that keeps the file valid and its blocks intact is written.
  // Placing content looks at the lines around it (and the file's indentation style): in a very long
  // file, the INDENT_WINDOW_LINES either side of the change, not all of its lines.
  const around = (at: number) => {
    if (lines.length <= 2 * INDENT_WINDOW_LINES)
      return { lines: Array.isArray(lines) ? lines : lines.slice(0, lines.length), at };
    const from = Math.max(0, at - INDENT_WINDOW_LINES);
    return { lines: lines.slice(from, at + INDENT_WINDOW_LINES), at: at - from };
  };
  const readings = changes.map((c) =>
    c.content.length === 0
      ? [{ lines: c.content, why: "" }]
      : indentCandidates(c.content, {
          ...around(c.start - 1),
          replacing: c.end - c.start + 1,
          indentLevel: c.indentLevel,
        }),
  );
  const pick = changes.map(() => 0);
  const placed = () => changes.map((c, k) => ({ ...c, content: readings[k][pick[k]].lines, verbatim: true }));
  const order = sortedChanges(changes);
  if ("error" in order) throw new ToolError(order.error);
  // A large file: the lines from the first change to the last, with a margin, are the window edited.
  const window = large
    ? (() => {
        const from = Math.max(0, order[0].start - 1 - WINDOW_MARGIN_LINES);
        const to = Math.min(large.count, Math.max(...order.map((c) => c.end)) + WINDOW_MARGIN_LINES);
        return { first: from, oldCount: to - from, old: windowModel(large, from, to) } satisfies Window;
      })()
    : undefined;
  const build = (): AppliedLines | { error: string } => {
    if (!window) return applyLineChanges(snap.model.lines, placed());
    const shift = window.first;
    const a = applyLineChanges(
      window.old.lines,
      placed().map((c) => ({ ...c, start: c.start - shift, end: c.end - shift })),
    );
    if ("error" in a) return a;
    return {
      lines: a.lines,
      start: a.start + shift,
      end: a.end + shift,
      regions: a.regions.map((r) => ({ start: r.start + shift, end: r.end + shift })),
    };
  };
  const first = build();
  if ("error" in first) throw new ToolError(first.error);
  // Choosing among readings validates each one; a file too large to validate takes the first.
  if (!force && !large && (snap.bytes?.length ?? 0) <= SYNTAX_CHECK_MAX_BYTES) {
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
      if ("refused" in choice)
        throw new ToolError(`${changes.length > 1 ? `change ${k + 1}: ` : ""}${choice.refused}`, {
          reason: "indentation",
        });
      pick[k] = choice.index;
      if (choice.note) notes.push(choice.note);
    }
  }
  // Content that was not kept as written: say where it went and why.
  readings.forEach((r, k) => {
    const why = r[pick[k]].why;
    if (
      why &&
      !why.startsWith("kept as written") &&
      !why.startsWith("indent_level") &&
      !notes.some((n) => n.startsWith("note: indentation"))
    ) {
      notes.push(
        `note: indentation ${why}${r.length > 1 && pick[k] === 0 ? " (the content's own indentation is not a level open there)" : ""}`,
      );
    }
  });
  const applied = build();
  if ("error" in applied) throw new ToolError(applied.error);
  // One deletion: the result names the lines removed (✓ Edited a.py:12-14), as
  // the new text has no lines left to name there.
  // lines_changed: the lines each change touched (replaced, inserted or deleted; a
  // replacement counts its longer side).
  const linesChanged = changes.reduce(
    (n, c, k) => n + Math.max(c.end - c.start + 1, readings[k][pick[k]].lines.length),
    0,
  );
  const only =
    changes.length === 1 && changes[0].content.length === 0 && changes[0].end >= changes[0].start
      ? changes[0]
      : undefined;
  const deleted = only ? { start: only.start, end: only.end } : undefined;
  return {
    // With a window: the new lines of the window only (see largeText.ts).
    model: window ? withLines(window.old, applied.lines) : withLines(snap.model, applied.lines),
    ...(window ? { window } : {}),
    start: applied.start,
    end: applied.end,
    notes,
    ...(deleted ? { summaryRange: deleted } : {}),
    ...(applied.regions.length > 1 ? { regions: applied.regions } : {}),
    metadata: {
      changes_applied: specs.length,
      lines_changed: linesChanged,
      ...(deleted
        ? { start_line: deleted.start, end_line: deleted.end, deleted_lines: deleted.end - deleted.start + 1 }
        : {}),
      ...(relocations.length ? { relocated: relocations } : {}),
    },
  };
}
