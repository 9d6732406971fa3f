// What `tools/list` shows: every registered tool under its canonical name, plus
// seed 000's MCP names (open_file_chunk, scroll_file...) as extra entries backed
// by the same tool. Each entry carries the tool's JSON schema, its model-facing
// description and annotations derived from the tool's flags.
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
import { TOOLS, jsonSchemaOf } from "../../tools/registry.js";
import { writeRefusal } from "../../tools/policy.js";

/** Seed 000 §7.4's MCP tool names. Each is a registry name or alias. */
export const SEED_MCP_NAMES: readonly string[] = ["open_file_chunk", "scroll_file", "find_file", "search_dir", "search_file", "edit_range", "insert_at"];

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
}

/** One entry of tools/list. */
export interface McpToolEntry {
  /** The name the client calls. */
  name: string;
  /** The registered tool behind it (same as name unless this is an alias). */
  tool: Tool;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations: ToolAnnotations;
}

type Availability = "full" | "dry-run-only" | "refused";

function availability(workspace: Workspace, tool: Tool): Availability {
  if (writeRefusal(workspace, tool, {}) === undefined) return "full";
  const schema = jsonSchemaOf(tool);
  const hasDryRun = Object.hasOwn((schema.properties ?? {}) as object, "dry_run");
  if (hasDryRun && writeRefusal(workspace, tool, { dry_run: true }) === undefined) return "dry-run-only";
  return "refused";
}

const DRY_RUN_NOTE =
  "[Preview only: the safe-read-only profile lets nothing be modified. Every call must pass dry_run: true; the result is the unified diff of what would change, and no file is written.]";

function entryFor(workspace: Workspace, tool: Tool, how: Exclude<Availability, "refused">): Omit<McpToolEntry, "name"> {
  const schema = jsonSchemaOf(tool) as McpToolEntry["inputSchema"];
  if (how === "dry-run-only") {
    const properties = { ...(schema.properties as Record<string, unknown>) };
    properties.dry_run = { type: "boolean", const: true, description: "Must be true: the profile only allows previews" };
    const required = [...new Set([...((schema.required as string[] | undefined) ?? []), "dry_run"])];
    return {
      tool,
      description: `${DRY_RUN_NOTE}\n${tool.description}`,
      inputSchema: { ...schema, properties, required },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
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
    annotations: {
      readOnlyHint: tool.readOnly,
      destructiveHint: (tool.destructive ?? !tool.readOnly) && !contained,
      idempotentHint: tool.idempotent === true,
    },
  };
}

/** The tools/list entries for this workspace's profile and environment. */
export function mcpToolList(workspace: Workspace): McpToolEntry[] {
  const entries: McpToolEntry[] = [];
  const listed = new Map<Tool, Omit<McpToolEntry, "name">>();
  for (const tool of TOOLS) {
    const how = availability(workspace, tool);
    if (how === "refused") continue;
    const entry = entryFor(workspace, tool, how);
    listed.set(tool, entry);
    entries.push({ name: tool.name, ...entry });
  }
  // Seed names that are aliases get their own entry. Other aliases (glob,
  // MultiEdit, str_replace...) are not listed, to keep the list short for the
  // client's context, but calls by those names still work.
  for (const alias of SEED_MCP_NAMES) {
    const tool = TOOLS.find((t) => t.aliases.includes(alias));
    const entry = tool && listed.get(tool);
    if (!tool || !entry) continue;
    entries.push({ name: alias, ...entry, description: `Seed 000 name for ${tool.name} (same tool, same arguments).\n${entry.description}` });
  }
  return entries;
}
