// The plan of string edits (edit, multi_edit): each old_string matched against
// the text the edits before it left, through the matching tiers (match.ts),
// placeholders refused (elision.ts), ambiguous indentation settled by the first
// reading that keeps the file valid (chooseReading.ts). Pure: text in, text out.
import { ToolError } from "../errors.js";
import { normalizedText, withLines, splitContent, type EditTarget } from "./fileModel.js";
import { planEdit, applyReplacements, type MatchSuccess } from "./match.js";
import { findElision, elisionMessage } from "./elision.js";
import { chooseReading } from "./chooseReading.js";

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
export async function planStringEdits(snap: EditTarget, edits: StringEdit[], label: (i: number) => string, opts: { force?: boolean } = {}) {
  let text = normalizedText(snap.model);
  const notes: string[] = [];
  const tiers: Array<{ tier: string; similarity?: number; lines: number[] }> = [];
  let first = Infinity;
  let last = 0;
  for (const [i, e] of edits.entries()) {
    const outcome = planEdit(text, e.old_string, e.new_string, { replaceAll: e.replace_all, eol: "\n" });
    if (!outcome.ok) throw new ToolError(`${label(i)}${outcome.message}`, { reason: outcome.reason, ...(outcome.lines ? { lines: outcome.lines } : {}), ...(outcome.closest ? { closest: outcome.closest } : {}) });
    if (!opts.force) {
      for (const rep of outcome.replacements) {
        const elided = findElision(text.slice(rep.start, rep.end).split("\n"), rep.text.split("\n"));
        if (elided) throw new ToolError(`${label(i)}${elisionMessage(elided, "new_string", rep.startLine - 1)}`, { reason: "elision", lines: [rep.startLine + elided.oldStart] });
      }
    }
    let next = applyReplacements(text, outcome.replacements);
    if (outcome.alternatives && outcome.alternatives.length > 0 && !opts.force) {
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
    tiers.push({ tier: outcome.tier, ...(outcome.similarity !== undefined ? { similarity: outcome.similarity } : {}), lines: outcome.lines });
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
