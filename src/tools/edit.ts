import * as z from "zod";
import { defineTool, ok } from "./types.js";
import { applyEdit } from "../workspace/applyEdit.js";
import { planStringEditInWindow, planStringEdits } from "../edit/stringEdits.js";
import { editOptions } from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

export const editTool = defineTool({
  name: "edit",
  aliases: ["str_replace"],
  brief: `Replace old_string, copied exactly from the file and found once, with new_string.`,
  description: `Replace old_string with new_string in a file. old_string must identify exactly one place (include a few surrounding lines to make it unique), unless replace_all: true.
If the exact text is not found, rt tolerates, still requiring one unique match: whitespace at line ends, Unicode punctuation (curly quotes, dashes), doubled escapes, an indentation shift, line numbers copied from a listing, a near-identical region. Lines new_string repeats from old_string keep the file's text. The result names the tier used.
Placeholders ("// ... existing code ...") for lines of old_string are refused.
Errors say why: not found (with the closest region: re-read the file), several matches (their lines: add context), new_string already there. To edit by line number or ID, use edit_lines.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z
        .object({
          path: editedPath(),
          old_string: z.string().describe("The text to replace, copied from the file"),
          new_string: z.string().describe("The replacement text"),
          replace_all: z.boolean().optional().describe("Replace every occurrence of old_string"),
          ...editOptions,
        })
        .strict(),
    ),
  readOnly: false,
  editing: true,
  async handler(args, { workspace }) {
    let tiers: unknown;
    const r = await applyEdit(
      workspace,
      args.path,
      async (snap) => {
        // A large file: the exact match found in its bytes is planned from the lines around it.
        const p =
          (await planStringEditInWindow(snap, args, { force: args.force })) ??
          (await planStringEdits(snap, [args], () => "", { force: args.force }));
        tiers = p.tiers[0];
        return p;
      },
      { tool: "edit", dryRun: args.dry_run, force: args.force, showDiff: args.show_diff },
    );
    const t = tiers as { tier: string; similarity?: number; lines: number[] };
    return ok(r.output, {
      ...r.metadata,
      tier: t.tier,
      ...(t.similarity !== undefined ? { similarity: t.similarity } : {}),
      match_lines: t.lines,
    });
  },
});
