import * as z from "zod";
import { defineTool } from "./types.js";
import { editOptions, indentLevel, lineRef, runLineChanges } from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

export const insertAtTool = defineTool({
  name: "insert_at",
  aliases: [],
  description: `Insert new_text before line \`line\` of a file (what \`rt insert\` does); line = number of lines + 1 appends at the end.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z
        .object({
          path: editedPath(),
          line: lineRef,
          new_text: z.string(),
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
      [{ kind: "insert-before", from: args.line, content: args.new_text, indentLevel: args.indent_level }],
      {
        tool: "insert_at",
        ...args,
      },
    );
  },
});
