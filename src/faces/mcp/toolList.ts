// What `tools/list` shows. By default a lean list, one entry per job: every
// registered tool under its canonical name, except the seeds' compatibility
// tools (edit_range, insert_at and edit_file, which edit_lines and edit cover,
// grep_file, which is grep with a file for its path, and scroll, which is open
// with a range),
// and the SQL tools only when a database connection is configured. With
// `rt mcp --seed-names`, the older tool names some clients call are listed
// too: those tools and their names for rt's (open_file_chunk, scroll_file,
// find_file, search_dir, search_file). A call by any registered name or alias works either way.
// Each entry carries the tool's JSON schema, its description, annotations
// derived from the tool's flags (defaults left out), and for tools with
// structured results an outputSchema.
//
// The profile is applied here the way the policy will apply it to calls, by
// asking the policy itself (writeRefusal):
//   - a tool the policy lets run as it is: listed as it is;
//   - a writing tool the policy only lets run with dry_run: true (the
//     safe-read-only profile): listed, with a description saying it only
//     previews and dry_run required in its schema, annotated read-only;
//   - a writing tool the policy refuses outright (undo_edit under
//     safe-read-only, every editing tool under RT_ENABLE_SWE=0): not listed.
//     A call by name still reaches the policy, which answers with its reason.
import type { Tool } from "../../tools/types.js";
import type { Workspace } from "../../workspace/workspace.js";
import { TOOLS, allTools, jsonSchemaOf, withoutSafeBounds } from "../../tools/registry.js";
import { offering } from "../../tools/policy.js";
import { listConnections } from "../../db/connections.js";
import { OUTPUT_SCHEMAS } from "./structured.js";

/** The older MCP tool names some clients call. Each is a registry name or alias. */
export const SEED_MCP_NAMES: readonly string[] = [
  "open_file_chunk",
  "scroll_file",
  "find_file",
  "search_dir",
  "search_file",
  "edit_range",
  "insert_at",
];

/** Tools kept for the seeds' clients, listed only with --seed-names: edit_lines, edit, grep and open do their jobs. */
export const SEED_COMPAT_TOOLS: readonly string[] = ["edit_range", "insert_at", "edit_file", "grep_file", "scroll"];

const SQL_TOOLS: readonly string[] = ["sql_query", "sql_tables", "sql_describe"];

export interface ListOptions {
  /** List the older tool names some clients call (open_file_chunk, search_dir...) and the compatibility tools too (rt mcp --seed-names). */
  seedNames?: boolean;
}

/** MCP's tool annotations; a hint equal to its default (read-only false, destructive true, idempotent false) is left out. */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

/** One entry of tools/list. */
export interface McpToolEntry {
  /** The name the client calls. */
  name: string;
  /** The registered tool behind it (same as name unless this is an alias). */
  tool: Tool;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
  annotations: ToolAnnotations;
}

/** The hints that differ from MCP's defaults. */
function hints(readOnly: boolean, destructive: boolean, idempotent: boolean): ToolAnnotations {
  return {
    ...(readOnly ? { readOnlyHint: true } : {}),
    ...(!readOnly && !destructive ? { destructiveHint: false } : {}),
    ...(idempotent ? { idempotentHint: true } : {}),
  };
}

/** Whether any database connection is configured (the SQL tools are offered only then). A configuration rt cannot read counts as one: the error then shows on use. */
function hasDatabase(workspace: Workspace): boolean {
  try {
    return listConnections(workspace).list.length > 0;
  } catch {
    return true;
  }
}

type Availability = "full" | "dry-run-only" | "refused";

/** The policy's own answer (offering), in this file's words. */
function availability(workspace: Workspace, tool: Tool): Availability {
  const how = offering(workspace, tool);
  return how === "preview" ? "dry-run-only" : how;
}

const DRY_RUN_NOTE =
  "[Preview only: the safe-read-only profile lets nothing be modified. Every call must pass dry_run: true; the result is the unified diff of what would change, and no file is written.]";

function entryFor(workspace: Workspace, tool: Tool, how: Exclude<Availability, "refused">): Omit<McpToolEntry, "name"> {
  const schema = withoutSafeBounds(jsonSchemaOf(tool)) as McpToolEntry["inputSchema"];
  const output = OUTPUT_SCHEMAS[tool.name];
  if (how === "dry-run-only") {
    const properties = { ...(schema.properties as Record<string, unknown>) };
    properties.dry_run = {
      type: "boolean",
      const: true,
      description: "Must be true: the profile only allows previews",
    };
    const required = [...new Set([...((schema.required as string[] | undefined) ?? []), "dry_run"])];
    return {
      tool,
      description: `${DRY_RUN_NOTE}\n${tool.description}`,
      inputSchema: { ...schema, properties, required },
      ...(output ? { outputSchema: output } : {}),
      annotations: hints(true, false, true),
    };
  }
  // Tools that enforce read-only themselves (bash in the OS sandbox, SQL in
  // read-only transactions, write_output creating new files only) cannot
  // destroy anything in safe-read-only, though they are not read-only.
  const contained = workspace.profile === "safe-read-only" && tool.enforcesReadOnly === true;
  return {
    tool,
    description: tool.description,
    inputSchema: schema,
    ...(output ? { outputSchema: output } : {}),
    annotations: hints(tool.readOnly, (tool.destructive ?? !tool.readOnly) && !contained, tool.idempotent === true),
  };
}

/** The tools/list entries for this workspace's profile, environment and configuration. */
export function mcpToolList(workspace: Workspace, opts: ListOptions = {}): McpToolEntry[] {
  const entries: McpToolEntry[] = [];
  const listed = new Map<Tool, Omit<McpToolEntry, "name">>();
  const databases = hasDatabase(workspace);
  for (const tool of allTools()) {
    if (!opts.seedNames && SEED_COMPAT_TOOLS.includes(tool.name)) continue;
    if (!databases && SQL_TOOLS.includes(tool.name)) continue;
    const how = availability(workspace, tool);
    if (how === "refused") continue;
    const entry = entryFor(workspace, tool, how);
    listed.set(tool, entry);
    entries.push({ name: tool.name, ...entry });
  }
  if (!opts.seedNames) return entries;
  // Seed names that are aliases get their own entry. Other aliases (glob,
  // MultiEdit, str_replace...) are never listed, but calls by those names work.
  for (const alias of SEED_MCP_NAMES) {
    const tool = TOOLS.find((t) => t.aliases.includes(alias));
    const entry = tool && listed.get(tool);
    if (!tool || !entry) continue;
    entries.push({
      name: alias,
      ...entry,
      description: `Another name for ${tool.name} (same tool, same arguments).\n${entry.description}`,
    });
  }
  return entries;
}
