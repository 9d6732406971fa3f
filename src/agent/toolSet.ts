// The tools the agent offers its model, and how each is described to it.
//
// Offered: what the policy lets run as it is in this workspace (offering():
// no editing tool under RT_ENABLE_SWE=0, none in the safe-read-only profile,
// where rt could only preview them) and what the approval mode offers (plan
// mode: read-only tools only). A call by another registered name still reaches
// the policy, which answers with its reason.
//
// Two sets (`agent.tools` in the configuration):
//   default  every offered tool, with its full description and schema;
//   lean     for small local models, whose context is short and who choose
//            worse among many similar tools: read, grep, find, edit,
//            edit_lines, write and bash, each with a one-sentence description
//            (Tool.brief) and only its everyday arguments. Options a small
//            model should not reach for (force, dry_run, line IDs, several
//            changes at once) are left out of the schema it sees; the tool
//            still accepts them.
import type { Tool } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import type { ToolSpec } from "./providers/types.js";
import { TOOLS, jsonSchemaOf } from "../tools/registry.js";
import { offering } from "../tools/policy.js";

export type AgentToolSet = "default" | "lean";
export const AGENT_TOOL_SETS: readonly AgentToolSet[] = ["default", "lean"];

/** The lean set (in the registry's order): each tool and the arguments its schema shows. */
export const LEAN_TOOLS: Readonly<Record<string, readonly string[]>> = {
  read: ["path", "offset", "limit"],
  find: ["pattern", "path"],
  grep: ["pattern", "path", "glob", "ignore_case"],
  edit_lines: ["path", "command", "start_line", "end_line", "insert_line", "new_content"],
  edit: ["path", "old_string", "new_string", "replace_all"],
  write: ["path", "content"],
  bash: ["command", "timeout"],
};

/** The tools offered to the model, in the registry's order. `offers`: the approval mode's say (plan mode offers read-only tools). */
export function offeredTools(workspace: Workspace, offers: (tool: Tool) => boolean, set: AgentToolSet = "default"): Tool[] {
  return TOOLS.filter((t) => offers(t) && offering(workspace, t) === "full" && (set === "default" || Object.hasOwn(LEAN_TOOLS, t.name)));
}

/** A JSON schema without zod's ±2^53-1 bounds on integers (they say nothing to a model and cost tokens). */
function withoutSafeBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSafeBounds);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "maximum" && v === Number.MAX_SAFE_INTEGER) || (k === "minimum" && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = withoutSafeBounds(v);
  }
  return out;
}

/** The lean schema of a tool: its everyday arguments only, without their descriptions (the brief says what they are). */
function leanSchema(tool: Tool): Record<string, unknown> {
  const schema = withoutSafeBounds(jsonSchemaOf(tool)) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const keep = LEAN_TOOLS[tool.name] ?? [];
  const properties: Record<string, unknown> = {};
  for (const name of keep) {
    const p = schema.properties?.[name];
    if (!p) continue;
    const { description: _dropped, ...rest } = p;
    properties[name] = rest;
  }
  const required = (schema.required ?? []).filter((r) => keep.includes(r));
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

/** The tool specs sent with every model request. */
export function agentToolSpecs(workspace: Workspace, offers: (tool: Tool) => boolean, set: AgentToolSet = "default"): ToolSpec[] {
  return offeredTools(workspace, offers, set).map((t) =>
    set === "lean" ? { name: t.name, description: t.brief ?? t.description, parameters: leanSchema(t) } : { name: t.name, description: t.description, parameters: jsonSchemaOf(t) },
  );
}
