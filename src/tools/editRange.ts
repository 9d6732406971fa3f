import { z } from "zod";
import { defineTool } from "./types.js";
import { editOptions, indentLevel, lineRef, runLineChanges } from "./lineEditing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./argAliases.js";

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
      [{ kind: args.new_text === "" ? "delete" : "replace", from: args.start_line, to: args.end_line, content: args.new_text, indentLevel: args.indent_level }],
      { tool: "edit_range", ...args },
    );
  },
});

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
    return runLineChanges(workspace, args.path, [{ kind: "insert-before", from: args.line, content: args.new_text, indentLevel: args.indent_level }], {
      tool: "insert_at",
      ...args,
    });
  },
});
