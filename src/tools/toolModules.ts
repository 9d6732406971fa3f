// The list of rt's built-in tools: one line per tool, its name and its module, in the order faces list
// them. Everything else about a tool (aliases, flags, schema, CLI command, handler) is in its module, which exports
// the tool (made with defineTool). A module loads when first imported: the registry (registry.ts)
// imports them all; a one-shot CLI command imports only its own (src/faces/cli/main.ts).
// Adding a tool: write src/tools/NAME.ts and add its line here (docs/contributing.md).
import type { Tool } from "./types.js";

export const TOOL_MODULES = {
  read: () => import("./read.js"),
  open: () => import("./open.js"),
  scroll: () => import("./scroll.js"),
  find: () => import("./find.js"),
  grep: () => import("./grep.js"),
  grep_file: () => import("./grepFile.js"),
  ls: () => import("./ls.js"),
  edit_lines: () => import("./editLines.js"),
  edit_range: () => import("./editRange.js"),
  insert_at: () => import("./insertAt.js"),
  edit: () => import("./edit.js"),
  multi_edit: () => import("./multiEdit.js"),
  edit_file: () => import("./editFile.js"),
  write: () => import("./write.js"),
  undo_edit: () => import("./undo.js"),
  sql_query: () => import("./sqlQuery.js"),
  sql_tables: () => import("./sqlTables.js"),
  sql_describe: () => import("./sqlDescribe.js"),
  bash: () => import("./bash.js"),
  bash_output: () => import("./bashOutput.js"),
  kill_shell: () => import("./killShell.js"),
  write_output: () => import("./writeOutput.js"),
  symbols: () => import("./symbols.js"),
  ast_grep: () => import("./astGrep.js"),
  lsp: () => import("./lsp.js"),
  notebook_edit: () => import("./notebookEdit.js"),
  web_fetch: () => import("./webFetch.js"),
  web_search: () => import("./webSearch.js"),
} as const satisfies Record<string, () => Promise<object>>;

export type BuiltinToolName = keyof typeof TOOL_MODULES;

/**
 * The `rt` commands not named after their tool (the tool's name with "-" for "_"): command → tool, so
 * that `rt edit` loads edit_range's module alone. Each tool's file says its command (its `cli`); the
 * CLI checks that the two agree (src/faces/cli/toolCommands.ts).
 */
export const CLI_COMMANDS: Readonly<Record<string, BuiltinToolName>> = {
  edit: "edit_range",
  insert: "insert_at",
  delete: "edit_lines",
  undo: "undo_edit",
  sql: "sql_query",
};

/** The tool a module exports (its one export made by defineTool), checked to carry the name it is listed under. */
export function toolOf(name: string, mod: object): Tool {
  const tools = Object.values(mod).filter(
    (v): v is Tool => typeof v === "object" && v !== null && "handler" in v && "name" in v,
  );
  if (tools.length !== 1)
    throw new Error(`src/tools/toolModules.ts: the module of ${name} exports ${tools.length} tools, not one`);
  if (tools[0].name !== name)
    throw new Error(`src/tools/toolModules.ts: ${name}'s module defines the tool ${tools[0].name}`);
  return tools[0];
}
