import { z } from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { applyEdit, type Snapshot } from "../workspace/applyEdit.js";
import { normalizedText, withLines, splitContent } from "../edit/fileModel.js";
import { planEdit, applyReplacements, type MatchSuccess } from "../edit/match.js";
import { editOptions } from "./lineEditing.js";

export interface StringEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Applies one old/new edit to normalized text, or throws a ToolError that says how to retry. */
export function applyStringEdit(text: string, e: StringEdit, where = ""): { text: string; outcome: MatchSuccess } {
  const outcome = planEdit(text, e.old_string, e.new_string, { replaceAll: e.replace_all, eol: "\n" });
  if (!outcome.ok) throw new ToolError(`${where}${outcome.message}`, { reason: outcome.reason, ...(outcome.lines ? { lines: outcome.lines } : {}), ...(outcome.closest ? { closest: outcome.closest } : {}) });
  return { text: applyReplacements(text, outcome.replacements), outcome };
}

/** Describes how a match was found, for the result. */
export function matchNotes(o: MatchSuccess): string[] {
  if (o.tier === "exact") return [];
  const sim = o.similarity !== undefined ? ` (similarity ${o.similarity.toFixed(3)})` : "";
  return [`note: matched by the ${o.tier} tier${sim}${o.note ? `: ${o.note}` : ""}`];
}

/** The plan for applying string edits to a snapshot: new model and the changed line range. */
export function planStringEdits(snap: Snapshot, edits: StringEdit[], label: (i: number) => string) {
  let text = normalizedText(snap.model);
  const notes: string[] = [];
  const tiers: Array<{ tier: string; similarity?: number; lines: number[] }> = [];
  let first = Infinity;
  let last = 0;
  edits.forEach((e, i) => {
    const r = applyStringEdit(text, e, label(i));
    text = r.text;
    notes.push(...matchNotes(r.outcome));
    tiers.push({ tier: r.outcome.tier, ...(r.outcome.similarity !== undefined ? { similarity: r.outcome.similarity } : {}), lines: r.outcome.lines });
    const added = Math.max(1, splitContent(e.new_string).length);
    for (const line of r.outcome.lines) {
      first = Math.min(first, line);
      last = Math.max(last, line + added - 1);
    }
  });
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
If the exact text is not found, rt tries, in order and still requiring a unique match: ignoring trailing whitespace; ignoring leading/trailing whitespace per line; folding Unicode punctuation (curly quotes, dashes, ellipsis, non-breaking spaces); undoing doubled escapes; a uniform indentation shift (new_string is shifted the same way); and finally a near-identical region (similarity >= 0.95, clearly better than any other). The result names the tier used.
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
      (snap) => {
        const p = planStringEdits(snap, [args], () => "");
        tiers = p.tiers[0];
        return p;
      },
      { tool: "edit", dryRun: args.dry_run, force: args.force, showDiff: args.show_diff },
    );
    const t = tiers as { tier: string; similarity?: number; lines: number[] };
    return ok(r.output, { ...r.metadata, tier: t.tier, ...(t.similarity !== undefined ? { similarity: t.similarity } : {}), match_lines: t.lines });
  },
});
