// Line references: a number ("12"), a line ID ("k3f9"), or both ("12:k3f9").
// With both, the ID wins when the line moved: the edit is applied where the ID
// is now and the result says it was relocated. A missing ID is an error that
// shows the current lines around the old position, with their IDs.

/** A line ID as rt shows it (a letter, then 3-5 letters or digits: k3f9). */
export const LINE_ID_PATTERN = /^[a-z][0-9a-z]{3,5}$/;

export type LineRef = number | string;

/** A file's lines as references read them: an array, or a large file's lines decoded one at a time (largeText.ts). */
export interface Lines {
  readonly length: number;
  at(i: number): string | undefined;
}

/** Line IDs (or what the caller was shown: null where nothing), an array or runs of counters read one at a time. */
export interface IdList {
  readonly length: number;
  at(i: number): string | null | undefined;
  indexOf(id: string): number;
}

export interface ParsedRef {
  line?: number;
  id?: string;
  text: string;
}

export function parseRef(ref: LineRef): ParsedRef | { error: string } {
  if (typeof ref === "number") {
    return Number.isInteger(ref)
      ? { line: ref, text: String(ref) }
      : { error: `line reference ${ref} is not a whole number` };
  }
  const t = ref
    .trim()
    .replace(/^\[?LID:/i, "")
    .replace(/\]$/, "");
  let m = /^(\d+)$/.exec(t);
  if (m) return { line: Number(m[1]), text: t };
  m = /^(\d+):([0-9a-z]+)$/.exec(t);
  if (m && LINE_ID_PATTERN.test(m[2])) return { line: Number(m[1]), id: m[2], text: t };
  if (LINE_ID_PATTERN.test(t)) return { id: t, text: t };
  return { error: `"${ref}" is not a line reference: use a line number (12), a line ID (k3f9) or both (12:k3f9)` };
}

export interface Resolved {
  /** 1-based line number in the current text. */
  line: number;
  /** Set when an N:ID reference was found at another line. */
  relocatedFrom?: number;
}

/**
 * Resolves a reference against the current lines and their IDs. `allowEnd`
 * accepts line count + 1 (insert at the end). Returns an error message otherwise.
 */
export function resolveRef(
  ref: LineRef,
  lines: Lines,
  ids: IdList | undefined,
  opts: { allowEnd?: boolean; allowZero?: boolean } = {},
): Resolved | { error: string } {
  const p = parseRef(ref);
  if ("error" in p) return p;
  const total = lines.length;
  if (p.id !== undefined) {
    if (!ids) return { error: `line IDs are not available for this file; use line numbers` };
    const at = ids.indexOf(p.id);
    if (at === -1) {
      return {
        error: `line ID ${p.id} is no longer in the file (the line was changed or deleted)${p.line ? ` near line ${p.line}` : ""}.\n${around(lines, ids, p.line ?? 1)}\nRe-read the file (read with ids: true) and use a current ID.`,
      };
    }
    if (p.line !== undefined && p.line !== at + 1) return { line: at + 1, relocatedFrom: p.line };
    return { line: at + 1 };
  }
  const n = p.line!;
  const max = opts.allowEnd ? total + 1 : total;
  const min = opts.allowZero ? 0 : 1;
  if (n < min || n > max) {
    const valid =
      max < min ? "it is empty, so there is no line to edit (insert into it instead)" : `valid lines are ${min}-${max}`;
    return { error: `line ${n} is out of range: the file has ${total} line${total === 1 ? "" : "s"}; ${valid}` };
  }
  return { line: n };
}

/** Numbered lines with IDs around `line` (for errors). */
export function around(lines: Lines, ids: IdList | undefined, line: number, radius = 3): string {
  if (lines.length === 0) return "(the file is empty)";
  const c = Math.min(Math.max(1, line), lines.length);
  const out = ["Current lines:"];
  for (let i = Math.max(1, c - radius); i <= Math.min(lines.length, c + radius); i++) {
    const id = ids?.at(i - 1);
    out.push(`${String(i).padStart(4)}: ${id ? `[LID:${id}] ` : ""}${lines.at(i - 1)}`);
  }
  return out.join("\n");
}

/**
 * A plain line number is trusted only if it still names the line the caller
 * saw there: `viewed[n-1]` is the ID rt last showed the caller at line n (see
 * LineIdStore.markViewed). When the file changed since (the caller's own edit
 * above, or another program) and line n now holds another line, the number is
 * stale. Returns null when it is not (or when rt never showed that line), else
 * an error saying where the line went. Line IDs (k3f9, 12:k3f9) never need this.
 */
export function staleNumber(
  n: number,
  viewed: IdList | undefined,
  currentIds: IdList | undefined,
  rel: string,
  lines?: Lines,
): string | null {
  if (!viewed || !currentIds || n < 1) return null;
  const seen = viewed.at(n - 1);
  if (seen === null || seen === undefined || currentIds.at(n - 1) === seen) return null;
  const now = currentIds.indexOf(seen);
  const quote = (i: number) => {
    const l = lines?.at(i);
    return l === undefined ? "" : ` (${JSON.stringify(l.length > 80 ? `${l.slice(0, 80)}…` : l)})`;
  };
  const current = currentIds.at(n - 1) ? ` Line ${n} is now ${n}:${currentIds.at(n - 1)}${quote(n - 1)}.` : "";
  const moved =
    now === -1
      ? " The line you saw there has since been changed or deleted."
      : ` The line you saw there is now ${now + 1}:${seen}${quote(now)}.`;
  return `line ${n} is ambiguous: ${rel} changed since you last viewed it, so line numbers may have shifted.${moved}${current} Say which you mean with N:ID, or re-read the file (read or open) and use the current numbers.`;
}
