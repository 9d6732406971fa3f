import { z } from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { applyEdit, type Snapshot } from "../workspace/applyEdit.js";
import { normalizedText, withLines, splitContent } from "../edit/fileModel.js";
import { planEdit, applyReplacements, type MatchSuccess } from "../edit/match.js";
import { findElision, elisionMessage } from "../edit/elision.js";
import { chooseReading } from "../edit/chooseReading.js";
import { editOptions } from "./lineEditing.js";

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
export async function planStringEdits(snap: Snapshot, edits: StringEdit[], label: (i: number) => string, opts: { force?: boolean } = {}) {
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

export const editTool = defineTool({
  name: "edit",
  aliases: ["str_replace"],
  description: `Replace old_string with new_string in a file. old_string must identify exactly one place (include a few surrounding lines to make it unique), unless replace_all: true.
If the exact text is not found, rt tries, in order and still requiring a unique match: ignoring trailing whitespace; ignoring whitespace at line ends; folding Unicode punctuation (curly quotes, dashes, non-breaking spaces); undoing doubled escapes in old_string; a uniform indentation shift; blanks inside lines; line numbers copied from a listing; a near-identical region (similarity >= 0.95, clearly the best). Lines new_string repeats from old_string keep the file's text. The result names the tier used.
Placeholders such as "// ... existing code ..." standing for lines of old_string are refused: give the full text.
Errors say why: not found (with the closest region and its first differing line — re-read the file), several matches (with their line numbers — add context), or new_string already present. For edits by line number or line ID, use edit_lines.`,
  schema: () => z
    .object({
      path: z.string().describe("File to edit, relative to the workspace root"),
      old_string: z.string().describe("The text to replace, copied from the file"),
      new_string: z.string().describe("The replacement text"),
      replace_all: z.boolean().optional().describe("Replace every occurrence of old_string"),
      ...editOptions,
    })
    .strict(),
  readOnly: false,
  editing: true,
  async handler(args, { workspace }) {
    let tiers: unknown;
    const r = await applyEdit(
      workspace,
      args.path,
      async (snap) => {
        const p = await planStringEdits(snap, [args], () => "", { force: args.force });
        tiers = p.tiers[0];
        return p;
      },
      { tool: "edit", dryRun: args.dry_run, force: args.force, showDiff: args.show_diff },
    );
    const t = tiers as { tier: string; similarity?: number; lines: number[] };
    return ok(r.output, { ...r.metadata, tier: t.tier, ...(t.similarity !== undefined ? { similarity: t.similarity } : {}), match_lines: t.lines });
  },
});
