import { z } from "zod";
import { defineTool, ok } from "./types.js";
import { applyEdit } from "../workspace/applyEdit.js";
import { parseFile, splitContent } from "../edit/fileModel.js";
import { editOptions } from "./lineEditing.js";

export const writeTool = defineTool({
  name: "write",
  aliases: ["write_file"],
  description: `Create a file, or overwrite one completely, with content (parent directories are created). The content is written exactly as given; an existing file keeps its mode. Prefer edit or edit_lines for changes to existing files. The file's line IDs start afresh.`,
  schema: () => z
    .object({
      path: z.string().describe("File to create or overwrite, relative to the workspace root"),
      content: z.string(),
      ...editOptions,
    })
    .strict(),
  readOnly: false,
  editing: true,
  idempotent: true,
  async handler(args, { workspace }) {
    const lines = splitContent(args.content);
    const r = await applyEdit(
      workspace,
      args.path,
      // The content is written exactly as given: its own line endings, BOM or none.
      () => ({ model: parseFile(Buffer.from(args.content, "utf8")), start: 1, end: lines.length }),
      { tool: "write", mayCreate: true, dryRun: args.dry_run, force: args.force, showDiff: args.show_diff, verb: "Wrote" },
    );
    if (r.metadata.changed) workspace.lineIds.clear(r.metadata.path as string);
    return ok(r.output, { ...r.metadata, bytes_written: Buffer.byteLength(args.content) });
  },
});
