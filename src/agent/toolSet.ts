// Which tools an agent loop has: the ones offered to the model (listed in each
// request and named in the system prompt), how they are described to it, and
// where its calls are looked up. The choice of tools for a session is made here
// and nowhere else, so a new rule (a profile, a configured list, a subagent's
// definition) is one change.
//
// Offered: what the policy lets run as it is in this workspace (offering():
// no editing tool under RT_ENABLE_SWE=0, none in the safe-read-only profile,
// where rt could only preview them) and what the approval mode offers (plan
// mode: read-only tools only). A call by another registered name still reaches
// the policy, which answers with its reason.
//
// Two choices (`agent.tools` in the configuration):
//   default  every offered tool, with its full description and schema;
//   lean     for small local models, whose context is short and who choose
//            worse among many similar tools: read, grep, find, edit,
//            edit_lines, write and bash, each with a one-sentence description
//            (Tool.brief) and only its everyday arguments. Options a small
//            model should not reach for (force, dry_run, line IDs, several
//            changes at once) are left out of the schema it sees; the tool
//            still accepts them.
import type { ToolSpec } from "./providers/types.js";
import { offeredIn, type ApprovalMode } from "./approval.js";
import { offering, type ToolLookup } from "../tools/policy.js";
import { REGISTRY_LOOKUP, allTools, jsonSchemaOf, withoutSafeBounds } from "../tools/registry.js";
import type { Tool } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { agentExtensionTools, findAgentExtensionTool } from "./extensionTools.js";

export type ToolSetChoice = "default" | "lean";
export const AGENT_TOOL_SETS: readonly ToolSetChoice[] = ["default", "lean"];

export interface AgentToolSet {
  /** Offered to the model, in this order. */
  readonly offered: readonly Tool[];
  /** Where a call's tool is found; a name it does not know is refused as an unknown tool. */
  readonly lookup: ToolLookup;
  /** How the offered tools are described to the model (default: in full). */
  readonly choice?: ToolSetChoice;
}

/** What the tool set of an agent session depends on. */
export interface SessionToolOptions {
  workspace: Workspace;
  approval: ApprovalMode;
  /** agent.tools (default: "default"). */
  choice?: ToolSetChoice;
  /**
   * The agent loop's own tools (task, todo_write, ask_user, batch,
   * exit_plan_mode; sessionTools/): every one is found by name, those
   * `offer(mode)` returns are offered (default set only).
   */
  loopTools?: { all: readonly Tool[]; offer: (mode: ApprovalMode) => readonly Tool[] };
}

/**
 * The tools of an agent session: every registry tool the approval mode offers
 * (plan mode: read-only ones) and the policy lets run as it is, the lean ones
 * only with "lean". A call to a tool that is not offered is still found, so the
 * approvals and the policy can say why it does not run.
 */
export function sessionToolSet(opts: SessionToolOptions): AgentToolSet {
  const choice = opts.choice ?? "default";
  const offers = (t: Tool) => offeredIn(opts.approval, t);
  // Extension tools (issue 18: custom tools, tool_create, MCP servers' tools) can be added during
  // the session, so the offered list is read afresh for each request.
  const extensions = () => (choice === "default" ? agentExtensionTools().filter((t) => offers(t) && offering(opts.workspace, t) === "full") : []);
  const loop = opts.loopTools;
  const loopByName = new Map<string, Tool>();
  for (const t of loop?.all ?? []) for (const n of [t.name, ...t.aliases]) loopByName.set(n, t);
  const lookup: ToolLookup = {
    find: (name) => REGISTRY_LOOKUP.find(name) ?? loopByName.get(name) ?? findAgentExtensionTool(name),
    names: () => [...REGISTRY_LOOKUP.names(), ...(loop?.all ?? []).map((t) => t.name), ...agentExtensionTools().map((t) => t.name)],
  };
  return {
    get offered() {
      return [...offeredTools(opts.workspace, offers, choice), ...(choice === "default" && loop ? loop.offer(opts.approval) : []), ...extensions()];
    },
    lookup,
    choice,
  };
}

/**
 * Exactly these tools, offered and found by name or alias; any other name is
 * an unknown tool (a subagent restricted to some tools cannot reach the rest).
 */
export function restrictedToolSet(tools: readonly Tool[]): AgentToolSet {
  const byName = new Map<string, Tool>();
  for (const t of tools) for (const n of [t.name, ...t.aliases]) if (!byName.has(n)) byName.set(n, t);
  const names = tools.map((t) => t.name);
  return { offered: [...tools], lookup: { find: (name) => byName.get(name), names: () => names } };
}

/** The offered tools as the provider sends them (name, description, JSON schema). */
export function toolSpecs(set: AgentToolSet): ToolSpec[] {
  return set.offered.map((t) => specOf(t, set.choice ?? "default"));
}

function specOf(t: Tool, choice: ToolSetChoice): ToolSpec {
  return choice === "lean" ? { name: t.name, description: t.brief ?? t.description, parameters: leanSchema(t) } : { name: t.name, description: t.description, parameters: jsonSchemaOf(t) };
}

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
export function offeredTools(workspace: Workspace, offers: (tool: Tool) => boolean, choice: ToolSetChoice = "default"): Tool[] {
  return allTools().filter((t) => offers(t) && offering(workspace, t) === "full" && (choice === "default" || Object.hasOwn(LEAN_TOOLS, t.name)));
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

/** The tool specs an agent session in this workspace sends with every model request (the library and the benchmarks use it). */
export function agentToolSpecs(workspace: Workspace, offers: (tool: Tool) => boolean, choice: ToolSetChoice = "default"): ToolSpec[] {
  return offeredTools(workspace, offers, choice).map((t) => specOf(t, choice));
}
