import * as z from "zod";
import { defineTool } from "./types.js";
import { shellQuote } from "../base/text.js";
import { EDIT_CLI_OPTIONS, editOptions, indentLevel, lineRef, runLineChanges } from "./shared/editing.js";
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
  cli: {
    command: "edit",
    synopsis: "rt edit PATH START END [--delete] [--dry-run] [--show-diff] [--force] [--indent N] <<'EOF'",
    summary:
      "replace lines START..END (1-based, inclusive; numbers, line IDs or N:ID) with standard input; empty input is refused unless --delete",
    positionals: [
      { key: "path", name: "PATH", path: true },
      { key: "start_line", name: "START" },
      { key: "end_line", name: "END" },
    ],
    options: EDIT_CLI_OPTIONS,
    flags: { delete: { help: "delete the lines (standard input must be empty; same as rt delete)" } },
    stdin: "new_text",
    refine(args, flags, words) {
      if (flags.delete && args.new_text !== "")
        return "--delete takes no standard input: the lines are removed, not replaced; drop --delete to replace them";
      if (!flags.delete && args.new_text === "")
        return `standard input is empty, which would delete lines ${words[1]}-${words[2]}; to delete them pass --delete (or run rt delete ${shellQuote(words[0])} ${words[1]} ${words[2]})`;
      return undefined;
    },
  },
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
