import * as z from "zod";
import { defineTool } from "./types.js";
import { EDIT_CLI_OPTIONS, editOptions, indentLevel, lineRef, runLineChanges } from "./shared/editing.js";
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
  cli: {
    command: "insert",
    synopsis: "rt insert PATH LINE [--dry-run] [--show-diff] [--force] [--indent N] <<'EOF'",
    summary: "insert standard input before LINE (LINE = line count + 1 appends)",
    positionals: [
      { key: "path", name: "PATH", path: true },
      { key: "line", name: "LINE" },
    ],
    options: EDIT_CLI_OPTIONS,
    stdin: "new_text",
    refine: (args) => (args.new_text === "" ? "standard input is empty: nothing to insert" : undefined),
  },
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
