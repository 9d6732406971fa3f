// The plan of string edits (edit, multi_edit): each old_string matched against
// the text the edits before it left, through the matching tiers (match.ts),
// placeholders refused (elision.ts), ambiguous indentation settled by the first
// reading that keeps the file valid (chooseReading.ts). Pure: text in, text out.
import { ToolError } from "../base/errors.js";
import { normalizedText, withLines, splitContent, type EditTarget } from "./fileModel.js";
import { planEdit, applyReplacements, type MatchSuccess } from "./match.js";
import { findElision, elisionMessage } from "./elision.js";
import { chooseReading } from "./chooseReading.js";
import { normalizeEol } from "./normalize.js";
import { lineAtByte, windowModel, WINDOW_MARGIN_LINES, type Window } from "./largeText.js";

export interface StringEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Describes how a match was found, for the result. */
export function matchNotes(o: MatchSuccess): string[] {
  if (o.tier === "exact") return [];
  const sim = o.similarity !== undefined ? ` (similarity ${o.similarity.toFixed(3)})` : "";
  return [`note: matched by the ${o.tier} tier${sim}${o.note ? `: ${o.note}` : ""}`];
}

/**
 * The plan for applying string edits to a snapshot: new model and the changed
 * line range. Each edit is matched against the result of the ones before it;
 * an edit whose new_string would delete code behind an elision marker is
 * refused, and when new_string's indentation can be read several ways the
 * first reading that keeps the file valid and its blocks intact is written
 * (both checks are skipped with `force`).
 */
export async function planStringEdits(
  snap: EditTarget,
  edits: StringEdit[],
  label: (i: number) => string,
  opts: { force?: boolean; syntaxChecks?: boolean } = {},
) {
  let text = normalizedText(snap.model);
  const notes: string[] = [];
  const tiers: Array<{ tier: string; similarity?: number; lines: number[] }> = [];
  let first = Infinity;
  let last = 0;
  for (const [i, e] of edits.entries()) {
    const outcome = planEdit(text, e.old_string, e.new_string, { replaceAll: e.replace_all, eol: "\n" });
    if (!outcome.ok)
      throw new ToolError(`${label(i)}${outcome.message}`, {
        reason: outcome.reason,
        ...(outcome.lines ? { lines: outcome.lines } : {}),
        ...(outcome.closest ? { closest: outcome.closest } : {}),
      });
    if (!opts.force) {
      for (const rep of outcome.replacements) {
        const elided = findElision(text.slice(rep.start, rep.end).split("\n"), rep.text.split("\n"));
        if (elided)
          throw new ToolError(`${label(i)}${elisionMessage(elided, "new_string", rep.startLine - 1)}`, {
            reason: "elision",
            lines: [rep.startLine + elided.oldStart],
          });
      }
    }
    let next = applyReplacements(text, outcome.replacements);
    // Without syntax checks (a window of a file too large to check), the first reading, as chooseReading gives it then.
    if (outcome.alternatives && outcome.alternatives.length > 0 && !opts.force && opts.syntaxChecks !== false) {
      const readings = [
        { text: next, why: outcome.indentation ?? "as matched" },
        ...outcome.alternatives.map((a) => ({ text: applyReplacements(text, a.replacements), why: a.why })),
      ];
      const choice = await chooseReading(snap.rel, text, readings, { root: snap.root });
      if ("refused" in choice) throw new ToolError(`${label(i)}${choice.refused}`, { reason: "indentation" });
      next = readings[choice.index].text;
      if (choice.note) notes.push(choice.note);
    }
    text = next;
    notes.push(...matchNotes(outcome));
    tiers.push({
      tier: outcome.tier,
      ...(outcome.similarity !== undefined ? { similarity: outcome.similarity } : {}),
      lines: outcome.lines,
    });
    const added = Math.max(1, splitContent(e.new_string).length);
    for (const line of outcome.lines) {
      first = Math.min(first, line);
      last = Math.max(last, line + added - 1);
    }
  }
  const lines = splitContent(text);
  return {
    model: withLines(snap.model, lines, text.endsWith("\n")),
    start: first === Infinity ? 1 : first,
    end: last,
    notes,
    tiers,
  };
}

/**
 * planStringEdits for one edit of a large file (EditTarget.large), from a
 * window of its lines, when old_string is found exactly once in the bytes: the
 * matching tiers then take it as the exact match, which only needs the lines
 * around it. The window holds those lines and more (the check that new_string
 * is not already there reads as far as new_string reaches either side). The
 * plan is the one planStringEdits makes on the whole text, its line numbers
 * moved to the file's; undefined when this does not apply (old_string not
 * found once, or not as bytes: then the whole text goes through the tiers).
 */
export async function planStringEditInWindow(snap: EditTarget, e: StringEdit, opts: { force?: boolean } = {}) {
  const t = snap.large;
  if (!t || e.replace_all) return undefined;
  const old = normalizeEol(e.old_string);
  // The text matched is the lines joined by "\n": old_string's bytes are that text's only where no
  // CRLF ending, BOM or replaced byte (U+FFFD) can be part of a match.
  if (
    old === "" ||
    old === normalizeEol(e.new_string) ||
    /[\r\ufeff\ufffd]/.test(old) ||
    (t.crlf > 0 && old.includes("\n"))
  )
    return undefined;
  const needle = Buffer.from(old, "utf8");
  if (needle.toString("utf8") !== old) return undefined;
  const body = t.bom ? 3 : 0;
  const at = t.bytes.indexOf(needle, body);
  if (at === -1 || t.bytes.indexOf(needle, at + 1) !== -1) return undefined;
  const reach = WINDOW_MARGIN_LINES + 1 + countNewlines(e.new_string) + countNewlines(old);
  const first = Math.max(0, lineAtByte(t, at) - reach);
  const last = lineAtByte(t, Math.max(at, at + needle.length - 1));
  const end = Math.min(t.count, last + 1 + reach);
  const window: Window = { first, oldCount: end - first, old: windowModel(t, first, end) };
  let planned: Awaited<ReturnType<typeof planStringEdits>>;
  try {
    planned = await planStringEdits({ root: snap.root, rel: snap.rel, bytes: null, model: window.old }, [e], () => "", {
      ...opts,
      syntaxChecks: false,
    });
  } catch {
    // Refused in the window (new_string already there, a placeholder): the whole text says it with the file's line numbers.
    return undefined;
  }
  if (planned.tiers[0]?.tier !== "exact") return undefined;
  const shift = (n: number) => n + first;
  return {
    ...planned,
    start: shift(planned.start),
    end: shift(planned.end),
    tiers: planned.tiers.map((x) => ({ ...x, lines: x.lines.map(shift) })),
    window,
  };
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
}
