// The one list of tools. Every face (CLI, `rt call`, MCP, the agent) finds
// tools here and calls them through the policy, never directly.
//
// The list holds what finding a tool needs (its name, aliases and whether it is
// read-only) and a loader; the rest of a tool (description, schema, handler,
// other flags) comes from its module the first time something reads it. In the
// `rt` executable that is when the module is evaluated (see toolModules.ts), so
// a one-shot command pays only for the tools it uses. The metadata written here
// must match the module's: the first load checks it.
import type { z } from "zod";
import { zod } from "../zodOnDemand.js";
import type { Tool } from "./types.js";
import { toolModules as m } from "./toolModules.js";

export interface ToolEntry {
  name: string;
  aliases: readonly string[];
  readOnly: boolean;
  load: () => Tool;
}

const ENTRIES: readonly ToolEntry[] = [
  { name: "read", aliases: ["read_file"], readOnly: true, load: () => m.read().readTool },
  { name: "open", aliases: ["open_file_chunk"], readOnly: true, load: () => m.open().openTool },
  { name: "scroll", aliases: ["scroll_file"], readOnly: true, load: () => m.scroll().scrollTool },
  { name: "find", aliases: ["find_file", "glob"], readOnly: true, load: () => m.find().findFilesTool },
  { name: "grep", aliases: ["search_dir"], readOnly: true, load: () => m.grep().grepTool },
  { name: "grep_file", aliases: ["grep-file", "search_file"], readOnly: true, load: () => m.grepFile().grepFileTool },
  { name: "ls", aliases: ["list_dir"], readOnly: true, load: () => m.ls().lsTool },
  { name: "edit_lines", aliases: [], readOnly: false, load: () => m.editLines().editLinesTool },
  { name: "edit_range", aliases: [], readOnly: false, load: () => m.editRange().editRangeTool },
  { name: "insert_at", aliases: [], readOnly: false, load: () => m.insertAt().insertAtTool },
  { name: "edit", aliases: ["str_replace"], readOnly: false, load: () => m.edit().editTool },
  { name: "multi_edit", aliases: ["MultiEdit"], readOnly: false, load: () => m.multiEdit().multiEditTool },
  { name: "edit_file", aliases: [], readOnly: false, load: () => m.editFile().editFileTool },
  { name: "write", aliases: ["write_file"], readOnly: false, load: () => m.write().writeTool },
  { name: "undo_edit", aliases: ["undo"], readOnly: false, load: () => m.undo().undoTool },
  { name: "sql_query", aliases: ["sql"], readOnly: true, load: () => m.sqlQuery().sqlQueryTool },
  { name: "sql_tables", aliases: ["list_tables"], readOnly: true, load: () => m.sqlTables().sqlTablesTool },
  { name: "sql_describe", aliases: ["describe_table"], readOnly: true, load: () => m.sqlDescribe().sqlDescribeTool },
  { name: "bash", aliases: ["shell"], readOnly: false, load: () => m.bash().bashTool },
  { name: "bash_output", aliases: ["BashOutput"], readOnly: false, load: () => m.bashOutput().bashOutputTool },
  { name: "kill_shell", aliases: ["KillShell"], readOnly: false, load: () => m.killShell().killShellTool },
  { name: "write_output", aliases: [], readOnly: false, load: () => m.writeOutput().writeOutputTool },
  // Code intelligence (issue 17).
  { name: "symbols", aliases: ["outline"], readOnly: true, load: () => m.symbols().symbolsTool },
  { name: "ast_grep", aliases: ["ast_search"], readOnly: false, load: () => m.astGrep().astGrepTool },
  { name: "lsp", aliases: ["LSP"], readOnly: true, load: () => m.lsp().lspTool },
  { name: "notebook_edit", aliases: ["NotebookEdit"], readOnly: false, load: () => m.notebookEdit().notebookEditTool },
  { name: "web_fetch", aliases: ["WebFetch"], readOnly: true, load: () => m.webFetch().webFetchTool },
  { name: "web_search", aliases: ["WebSearch"], readOnly: true, load: () => m.webSearch().webSearchTool },
];

/** The module's tool, after checking it is the one the entry describes. */
function loadChecked(entry: ToolEntry): Tool {
  const tool = entry.load();
  const same = tool.name === entry.name && tool.readOnly === entry.readOnly && tool.aliases.join(",") === entry.aliases.join(",");
  if (!same) {
    throw new Error(
      `tool registry out of date: the entry for ${entry.name} (aliases ${entry.aliases.join(", ") || "none"}, readOnly ${entry.readOnly}) does not match its module (${tool.name}, aliases ${tool.aliases.join(", ") || "none"}, readOnly ${tool.readOnly}); update src/tools/registry.ts`,
    );
  }
  return tool;
}

/**
 * A Tool whose module loads when anything beyond name, aliases and readOnly is
 * read. A class: its getters are shared by every tool, where an object literal
 * per tool made a dozen closures each at every start-up.
 */
class LazyTool implements Tool {
  readonly name: string;
  readonly aliases: string[];
  readonly readOnly: boolean;
  private loaded: Tool | undefined;

  constructor(private readonly entry: ToolEntry) {
    this.name = entry.name;
    this.aliases = [...entry.aliases];
    this.readOnly = entry.readOnly;
  }

  private real(): Tool {
    return (this.loaded ??= loadChecked(this.entry));
  }
  get description() {
    return this.real().description;
  }
  get brief() {
    return this.real().brief;
  }
  get schema() {
    return this.real().schema;
  }
  get destructive() {
    return this.real().destructive;
  }
  get idempotent() {
    return this.real().idempotent;
  }
  get editing() {
    return this.real().editing;
  }
  get swe() {
    return this.real().swe;
  }
  get enforcesReadOnly() {
    return this.real().enforcesReadOnly;
  }
  get approvalScope() {
    return this.real().approvalScope;
  }
  get unavailable() {
    return this.real().unavailable;
  }
  get plainArgs() {
    return this.real().plainArgs;
  }
  // A property, as before: callers may pass the handler on unbound.
  readonly handler: Tool["handler"] = (args, ctx) => this.real().handler(args, ctx);
}

/** Every tool, in the order faces list them. Reading a tool's description or schema loads its module. */
export const TOOLS: readonly Tool[] = ENTRIES.map((entry) => new LazyTool(entry));

const byName = new Map<string, Tool>();
for (const tool of TOOLS) {
  for (const name of [tool.name, ...tool.aliases]) {
    if (byName.has(name)) throw new Error(`tool name ${name} registered twice`);
    byName.set(name, tool);
  }
}

/** Finds a tool by its canonical name or any alias (without loading its module). */
export function findTool(name: string): Tool | undefined {
  return byName.get(name) ?? extraTools.get(name);
}

export function toolNames(): string[] {
  return allTools().map((t) => t.name);
}

// Tools defined outside rt's code (custom tools as data, src/extensions/):
// registered at run time by the face that loaded them for a workspace, found
// after the built-in ones and listed after them. A built-in name is never
// replaced.
const extraTools = new Map<string, Tool>();

/** Registers tools defined as data under their names; `source` names them for unregisterTools. Returns the names refused (taken). */
export function registerTools(tools: readonly Tool[], source: string): string[] {
  const refused: string[] = [];
  for (const tool of tools) {
    if (byName.has(tool.name) || extraTools.has(tool.name)) refused.push(tool.name);
    else extraTools.set(tool.name, Object.assign(tool, { [EXTRA_SOURCE]: source }));
  }
  return refused;
}

/** Removes every tool registered from `source`. */
export function unregisterTools(source: string): void {
  for (const [name, tool] of extraTools) if ((tool as { [EXTRA_SOURCE]?: string })[EXTRA_SOURCE] === source) extraTools.delete(name);
}

const EXTRA_SOURCE = Symbol("rt.toolSource");

/** Every tool: the built-in ones, then those registered at run time. */
export function allTools(): readonly Tool[] {
  return extraTools.size ? [...TOOLS, ...extraTools.values()] : TOOLS;
}

/** The registry's own entries (name, aliases, readOnly, loader), for tests that check them against the modules. */
export function toolEntries(): readonly ToolEntry[] {
  return ENTRIES;
}

const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The tool's argument schema as JSON Schema (for MCP, the agent and error messages): converted once per tool, a fresh copy each call. */
export function jsonSchemaOf(tool: Tool): Record<string, unknown> {
  if (tool.inputJsonSchema) return structuredClone(tool.inputJsonSchema);
  let schema = jsonSchemas.get(tool.schema);
  if (!schema) {
    schema = zod().toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
    delete schema.$schema;
    jsonSchemas.set(tool.schema, schema);
  }
  return structuredClone(schema);
}

/** A JSON schema without zod's ±2^53-1 bounds on integers: they say nothing to a model or a client and cost every request bytes. */
export function withoutSafeBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSafeBounds);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "maximum" && v === Number.MAX_SAFE_INTEGER) || (k === "minimum" && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = withoutSafeBounds(v);
  }
  return out;
}
