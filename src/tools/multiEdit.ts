import * as z from "zod";
import { defineTool, ok } from "./types.js";
import { applyEdit } from "../workspace/applyEdit.js";
import { planStringEdits } from "../edit/stringEdits.js";
import { editOptions } from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

export const multiEditTool = defineTool({
  name: "multi_edit",
  aliases: ["MultiEdit"],
  description: `Several old_string/new_string edits to one file, in order (each on the result of the previous), written once. Each follows edit's rules. If one fails, nothing is written and the error names it.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z
        .object({
          path: editedPath(),
          edits: z
            .array(
              z
                .object({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() })
                .strict(),
            )
            .min(1),
          ...editOptions,
        })
        .strict(),
    ),
  readOnly: false,
  editing: true,
  async handler(args, { workspace }) {
    let tiers: unknown[] = [];
    const r = await applyEdit(
      workspace,
      args.path,
      async (snap) => {
        const p = await planStringEdits(
          snap,
          args.edits,
          (i) => `edits[${i}] (edit ${i + 1} of ${args.edits.length}) failed; nothing was written: `,
          { force: args.force },
        );
        tiers = p.tiers;
        return p;
      },
      { tool: "multi_edit", dryRun: args.dry_run, force: args.force, showDiff: args.show_diff },
    );
    return ok(r.output, { ...r.metadata, edits_applied: args.edits.length, tiers });
  },
});
