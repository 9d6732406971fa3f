import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { applyEdit } from "../workspace/applyEdit.js";
import { normalizedText, withLines, splitContent } from "../edit/fileModel.js";
import { editOptions } from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

/** Line number (1-based) of a character offset. */
export function lineAt(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export const editFileTool = defineTool({
  name: "edit_file",
  aliases: [],
  description: `Replace the first exact occurrence of old with new in a file. Kept for older clients; prefer edit (which requires a unique match and tolerates whitespace drift) or edit_lines.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z.object({ path: editedPath(), old: z.string().min(1), new: z.string(), ...editOptions }).strict(),
    ),
  readOnly: false,
  swe: true,
  editing: true,
  async handler(args, { workspace }) {
    const r = await applyEdit(
      workspace,
      args.path,
      (snap) => {
        const text = normalizedText(snap.model);
        const old = args.old.replace(/\r\n/g, "\n");
        const at = text.indexOf(old);
        if (at === -1)
          throw new ToolError(
            `old text not found in ${snap.rel}; re-read the file (open or read) and copy the text exactly, or use edit, which tolerates whitespace differences`,
          );
        const next = text.slice(0, at) + args.new.replace(/\r\n/g, "\n") + text.slice(at + old.length);
        const start = lineAt(text, at);
        const lines = splitContent(next);
        return {
          model: withLines(snap.model, lines, next.endsWith("\n")),
          start,
          end: start + splitContent(args.new).length - 1,
        };
      },
      { tool: "edit_file", dryRun: args.dry_run, force: args.force, showDiff: args.show_diff },
    );
    return ok(r.output, r.metadata);
  },
});
