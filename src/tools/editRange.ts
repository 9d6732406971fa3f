import * as z from "zod";
import { defineTool } from "./types.js";
import { editOptions, indentLevel, lineRef, runLineChanges } from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

export const editRangeTool = defineTool({
  name: "edit_range",
  aliases: [],
  description: `Replace lines start_line..end_line (1-based, inclusive) of a file with new_text (what \`rt edit\` does). Empty new_text deletes the lines. Out-of-range or reversed ranges are errors that state the file's line count. The result shows the edited region, numbered.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z
        .object({
          path: editedPath(),
          start_line: lineRef,
          end_line: lineRef,
          new_text: z.string().describe("The replacement lines"),
          indent_level: indentLevel,
          ...editOptions,
        })
        .strict(),
    ),
  readOnly: false,
  swe: true,
  editing: true,
  async handler(args, { workspace }) {
    return runLineChanges(
      workspace,
      args.path,
      [
        {
          kind: args.new_text === "" ? "delete" : "replace",
          from: args.start_line,
          to: args.end_line,
          content: args.new_text,
          indentLevel: args.indent_level,
        },
      ],
      { tool: "edit_range", ...args },
    );
  },
});
