import * as z from "zod";
import { defineTool, ToolError } from "./types.js";
import {
  EDIT_CLI_OPTIONS,
  editOptions,
  indentLevel,
  lineRef,
  runLineChanges,
  type ChangeSpec,
} from "./shared/editing.js";
import { FILE_PATH_ALIAS, editedPath, withArgAliases } from "./shared/argAliases.js";

const change = z
  .object({
    line_id: lineRef.optional().describe("This one line"),
    start_line_id: lineRef.optional().describe("First line of a range"),
    end_line_id: lineRef.optional().describe("Its last line"),
    after_line_id: lineRef.optional().describe("Insert after it (0: at the top)"),
    before_line_id: lineRef.optional().describe("Insert before it"),
    new_content: z.string().nullable().optional().describe("New lines; null deletes"),
    delete: z.boolean().optional(),
    indent_level: indentLevel,
  })
  .strict();

type Change = z.infer<typeof change>;

function toSpec(c: Change, i: number): ChangeSpec {
  const where = `changes[${i}]`;
  const del = c.delete === true || c.new_content === null;
  const content = c.new_content ?? undefined;
  const anchors = [c.line_id, c.start_line_id, c.after_line_id, c.before_line_id].filter((x) => x !== undefined).length;
  if (anchors !== 1)
    throw new ToolError(
      `${where}: give exactly one of line_id, start_line_id (+ end_line_id), after_line_id or before_line_id`,
    );
  if (!del && content === undefined)
    throw new ToolError(`${where}: new_content is required (use delete: true to delete lines)`);
  if (c.after_line_id !== undefined || c.before_line_id !== undefined) {
    if (del) throw new ToolError(`${where}: an insertion cannot delete`);
    return c.after_line_id !== undefined
      ? { kind: "insert-after", from: c.after_line_id, content, indentLevel: c.indent_level }
      : { kind: "insert-before", from: c.before_line_id!, content, indentLevel: c.indent_level };
  }
  const from = (c.line_id ?? c.start_line_id)!;
  const to = c.line_id !== undefined ? undefined : (c.end_line_id ?? c.start_line_id);
  return { kind: del ? "delete" : "replace", from, to, content, indentLevel: c.indent_level };
}

export const editLinesTool = defineTool({
  name: "edit_lines",
  aliases: [],
  brief: `Edit by line number: command "replace" (start_line..end_line by new_content), "insert" (new_content after insert_line; 0 = top) or "delete".`,
  description: `Edit a file by line: no need to reproduce the old text. Lines are numbers (12), line IDs from read/grep with ids (k3f9), or both (12:k3f9: the ID wins if the line moved). After other edits prefer IDs: numbers shift (a number no longer naming the line you were shown is refused).
Two forms:
- {path, command: "replace"|"insert"|"delete", start_line, end_line, insert_line, new_content, indent_level?}: replace/delete start_line..end_line; insert new_content after insert_line (0 = at the beginning).
- {path, changes: [{line_id, new_content} | {start_line_id, end_line_id, new_content} | {after_line_id | before_line_id, new_content} | {line_id, delete: true}]}: several changes against the same content, all or none.
New content is re-indented to its place unless it fits (indent_level sets it). Edits adding syntax errors are rejected (force: true overrides); dry_run: true shows the diff only.`,
  schema: () =>
    withArgAliases(
      FILE_PATH_ALIAS,
      z
        .object({
          path: editedPath(),
          command: z.enum(["replace", "insert", "delete"]).optional(),
          start_line: lineRef.optional(),
          end_line: lineRef.optional(),
          insert_line: lineRef.optional().describe("insert after it (0: at the top)"),
          new_content: z.string().optional(),
          indent_level: indentLevel.describe("Columns of its first level"),
          changes: z.array(change).optional(),
          ...editOptions,
        })
        .strict(),
    ),
  cli: {
    command: "delete",
    synopsis: "rt delete PATH START END [--dry-run] [--show-diff] [--force]",
    summary: "delete lines START..END",
    positionals: [
      { key: "path", name: "PATH", path: true },
      { key: "start_line", name: "START" },
      { key: "end_line", name: "END" },
    ],
    options: EDIT_CLI_OPTIONS,
    fixed: { command: "delete" },
  },
  readOnly: false,
  editing: true,
  async handler(args, { workspace }) {
    let specs: ChangeSpec[];
    if (args.changes !== undefined) {
      if (args.command !== undefined) throw new ToolError("give either changes or command, not both");
      specs = args.changes.map(toSpec);
    } else if (args.command === "insert") {
      if (args.insert_line === undefined)
        throw new ToolError("insert needs insert_line (new_content goes after it; 0 = at the beginning)");
      if (args.new_content === undefined) throw new ToolError("insert needs new_content");
      specs = [
        { kind: "insert-after", from: args.insert_line, content: args.new_content, indentLevel: args.indent_level },
      ];
    } else if (args.command === "replace" || args.command === "delete") {
      if (args.start_line === undefined)
        throw new ToolError(`${args.command} needs start_line (and end_line for a range)`);
      if (args.command === "replace" && args.new_content === undefined)
        throw new ToolError("replace needs new_content");
      specs = [
        {
          kind: args.command,
          from: args.start_line,
          to: args.end_line ?? args.start_line,
          content: args.new_content,
          indentLevel: args.indent_level,
        },
      ];
    } else {
      throw new ToolError('give command ("replace", "insert" or "delete") with line numbers, or changes: [...]');
    }
    return runLineChanges(workspace, args.path, specs, { tool: "edit_lines", ...args });
  },
});
