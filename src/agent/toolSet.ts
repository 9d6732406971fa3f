// Which tools an agent loop has: the ones offered to the model (listed in each
// request and named in the system prompt) and where its calls are looked up.
// The choice of tools for a session is made here and nowhere else, so a new
// rule (a profile, a configured list, a subagent's definition) is one change.
import type { ToolSpec } from "./providers/types.js";
import { offeredIn, type ApprovalMode } from "./approval.js";
import { REGISTRY_LOOKUP, type ToolLookup } from "../tools/policy.js";
import { TOOLS, jsonSchemaOf } from "../tools/registry.js";
import type { Tool } from "../tools/types.js";

export interface AgentToolSet {
  /** Offered to the model, in this order. */
  readonly offered: readonly Tool[];
  /** Where a call's tool is found; a name it does not know is refused as an unknown tool. */
  readonly lookup: ToolLookup;
}

/** What the tool set of an agent session depends on. */
export interface SessionToolOptions {
  approval: ApprovalMode;
}

/**
 * The tools of an agent session: every registry tool the approval mode offers
 * (plan mode: read-only ones). A call to a tool that is not offered is still
 * found, so the approvals can say why it does not run.
 */
export function sessionToolSet(opts: SessionToolOptions): AgentToolSet {
  return { offered: TOOLS.filter((t) => offeredIn(opts.approval, t)), lookup: REGISTRY_LOOKUP };
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
  return set.offered.map((t) => ({ name: t.name, description: t.description, parameters: jsonSchemaOf(t) }));
}
