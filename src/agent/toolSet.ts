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
//   default  the everyday tools with their full descriptions and schemas, and one
//            tool_search for the rest (below);
//   lean     for small local models, whose context is short and who choose
//            worse among many similar tools: read, grep, find, edit,
//            edit_lines, write and bash, each with a one-sentence description
//            (Tool.brief) and only its everyday arguments. Options a small
//            model should not reach for (force, dry_run, line IDs, several
//            changes at once) are left out of the schema it sees; the tool
//            still accepts them.
//
// The default list is lean too, since every request carries it: the SQL tools only
// when a database connection is configured; the seed-compatibility tools (edit_range,
// insert_at, edit_file, grep_file, scroll) only with `--seed-names` or
// `agent.seed_tools`; the tools a session rarely needs (DEFERRED_TOOLS: notebook_edit,
// web_fetch, lsp, ast_grep, tool_create...) and, when the MCP client defers them, the
// user's MCP servers' tools, behind one `tool_search` tool: it returns the matching
// tools' schemas, and each tool it found is offered from the next request on (at the
// end of the list, so the request prefix before it stays as it was). `agent.defer_tools:
// false` offers everything at once. A call by name to any tool still reaches the policy.
import * as z from "zod";
import type { ToolSpec } from "./providers/types.js";
import { offeredIn, type ApprovalMode } from "./approval.js";
import { offering } from "../tools/policy.js";
import { REGISTRY_LOOKUP, allTools, jsonSchemaOf, registryGeneration, withoutSafeBounds } from "../tools/registry.js";
import { defineTool, ok, type Tool, type ToolLookup } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { agentDeferredExtensionTools, agentExtensionTools, findAgentExtensionTool } from "./extensionTools.js";
import { listConnections } from "../db/connections.js";
import { rankTools } from "../tools/shared/toolSearch.js";
import { TOOL_SEARCH_MAX_RESULTS } from "../base/limits.js";

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
  /** Offer the seed-compatibility tools (SEED_COMPAT_TOOLS) directly: `--seed-names`, agent.seed_tools. */
  seedTools?: boolean;
  /** Defer the rarely used tools behind tool_search (default true; agent.defer_tools). */
  deferTools?: boolean;
}

/** Tools kept for the seeds' clients; edit_lines, edit, grep and open do their jobs. */
export const SEED_COMPAT_TOOLS: readonly string[] = ["edit_range", "insert_at", "edit_file", "grep_file", "scroll"];
/** The SQL tools: offered only when a database connection is configured. */
export const SQL_TOOLS: readonly string[] = ["sql_query", "sql_tables", "sql_describe"];
/**
 * Tools a session rarely needs, found through tool_search instead of described in every
 * request: background shells' follow-ups, several edits at once, undo, code intelligence,
 * notebooks, the web, the agent extending itself, and batch.
 */
export const DEFERRED_TOOLS: readonly string[] = [
  "multi_edit",
  "undo_edit",
  "bash_output",
  "kill_shell",
  "write_output",
  "symbols",
  "ast_grep",
  "lsp",
  "notebook_edit",
  "web_fetch",
  "web_search",
  "batch",
  "tool_create",
];

/** Whether a database connection is configured (a configuration that cannot be read counts as one: the tools then say why). */
function hasDatabase(workspace: Workspace): boolean {
  try {
    return listConnections(workspace).list.length > 0;
  } catch {
    return true;
  }
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
  const usable = (t: Tool) => offers(t) && offering(opts.workspace, t) === "full";
  const defer = choice === "default" && opts.deferTools !== false;
  // Decided once per session, so the tool list (the start of every request) stays the same.
  const sql = hasDatabase(opts.workspace);
  const registryOk = (t: Tool) =>
    (sql || !SQL_TOOLS.includes(t.name)) && (opts.seedTools || !SEED_COMPAT_TOOLS.includes(t.name));
  // Extension tools (custom tools, tool_create, MCP servers' tools) can be added during
  // the session, so the offered list is read afresh for each request. With deferral, mcp_search
  // gives way to tool_search, which searches the MCP tools the client defers too.
  const extensions = () =>
    choice === "default" ? agentExtensionTools().filter((t) => usable(t) && !(defer && t.name === "mcp_search")) : [];
  const loop = opts.loopTools;
  const loopByName = new Map<string, Tool>();
  for (const t of loop?.all ?? []) for (const n of [t.name, ...t.aliases]) loopByName.set(n, t);
  const found = new Set<string>();
  const isDeferred = (t: Tool) =>
    defer && (DEFERRED_TOOLS.includes(t.name) || (!opts.seedTools && SEED_COMPAT_TOOLS.includes(t.name)));
  /** Every tool tool_search can find: the deferred ones this session could use, and the MCP tools the client defers. */
  // The registry's tools this session offers or defers depend on the workspace, its profile and
  // configuration and the approval mode, all fixed for this set (another mode gets another set):
  // worked out once, not for every request (each tool's availability may read the configuration).
  // A tool registered meanwhile (tool_create, custom tools reloaded) moves the registry's generation.
  let registryDirect: Tool[] | undefined;
  let registryDeferred: Tool[] | undefined;
  let cachedAt = registryGeneration();
  const fresh = () => {
    if (cachedAt === registryGeneration()) return;
    cachedAt = registryGeneration();
    registryDirect = registryDeferred = undefined;
  };
  const catalog = (): Tool[] => {
    fresh();
    const registry = (registryDeferred ??= allTools().filter(
      (t) => usable(t) && (sql || !SQL_TOOLS.includes(t.name)) && isDeferred(t),
    ));
    const loopDeferred = choice === "default" && loop ? loop.offer(opts.approval).filter(isDeferred) : [];
    const ext = extensions().filter(isDeferred);
    const mcp = agentDeferredExtensionTools().filter(usable);
    return [...registry, ...loopDeferred, ...ext, ...mcp];
  };
  const search = defer ? toolSearchTool(catalog, found) : undefined;
  const lookup: ToolLookup = {
    find: (name) =>
      search && name === search.name
        ? search
        : (REGISTRY_LOOKUP.find(name) ?? loopByName.get(name) ?? findAgentExtensionTool(name)),
    names: () => [
      ...REGISTRY_LOOKUP.names(),
      ...(loop?.all ?? []).map((t) => t.name),
      ...agentExtensionTools().map((t) => t.name),
      ...(search ? [search.name] : []),
    ],
  };
  return {
    get offered() {
      fresh();
      const direct = [
        ...(registryDirect ??= offeredTools(opts.workspace, offers, choice).filter(registryOk)),
        ...(choice === "default" && loop ? loop.offer(opts.approval) : []),
        ...extensions(),
      ];
      if (!search) return direct;
      const all = catalog();
      const later = [...found].map((n) => all.find((t) => t.name === n)).filter((t): t is Tool => t !== undefined);
      return [...direct.filter((t) => !isDeferred(t)), ...(all.length ? [search] : []), ...later];
    },
    lookup,
    choice,
  };
}

/**
 * tool_search: finds deferred tools by keywords (every word in the name or description, best
 * first) or exactly ("select:a,b"), and returns their schemas; each tool found is offered from
 * the next request on. Its description names every tool it can find, so the model knows they
 * exist; the list is the same for the whole session.
 */
function toolSearchTool(catalog: () => Tool[], found: Set<string>): Tool {
  let described: string | undefined;
  const tool = defineTool({
    name: "tool_search",
    aliases: [],
    description: "",
    schema: () =>
      z
        .object({
          query: z.string().min(1).describe('Keywords, or "select:NAME,NAME"'),
          limit: z
            .number()
            .int()
            .min(1)
            .max(50)
            .optional()
            .describe(`At most this many (default ${TOOL_SEARCH_MAX_RESULTS})`),
        })
        .strict(),
    readOnly: true,
    async handler(args) {
      const all = catalog();
      const hits = rankTools(all, args.query, args.limit ?? TOOL_SEARCH_MAX_RESULTS);
      if (!hits.length)
        return ok(
          `no tool matches ${JSON.stringify(args.query)}; the tools it can find: ${all.map((t) => t.name).join(", ")}. Try other words, or select:NAME.`,
          { tools: [] },
        );
      for (const t of hits) found.add(t.name);
      const list = hits.map((t) => ({ name: t.name, description: t.description, input_schema: jsonSchemaOf(t) }));
      return ok(`${hits.length} tool(s), callable from your next step:\n${JSON.stringify(list, null, 1)}`, {
        tools: list.map((t) => t.name),
      });
    },
  });
  // The description names what it can find (the user's MCP servers' tools by server and count, as
  // there may be hundreds): read when the tool list is first built, then kept for the session.
  const describe = () => {
    const all = catalog();
    const own = all.filter((t) => !t.name.startsWith("mcp__")).map((t) => t.name);
    const servers = new Map<string, number>();
    for (const t of all)
      if (t.name.startsWith("mcp__")) servers.set(t.name.split("__")[1], (servers.get(t.name.split("__")[1]) ?? 0) + 1);
    const mcp = [...servers].map(([s, n]) => `${s} (${n})`).join(", ");
    return `Load tools not listed here, by keywords or "select:NAME,NAME"; returns their schemas and they can be called from your next step. Available: ${own.join(", ")}${mcp ? `; MCP servers' tools (mcp__SERVER__TOOL): ${mcp}` : ""}.`;
  };
  return Object.defineProperty(tool, "description", { get: () => (described ??= describe()), enumerable: true });
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

/** Each tool's spec as sent, made once per tool and description choice (a tool's schema and description do not change). */
const specCache = { default: new WeakMap<Tool, ToolSpec>(), lean: new WeakMap<Tool, ToolSpec>() };

/** The offered tools as the provider sends them (name, description, JSON schema). */
export function toolSpecs(set: AgentToolSet): ToolSpec[] {
  const choice = set.choice ?? "default";
  const cache = specCache[choice];
  return set.offered.map((t) => {
    let spec = cache.get(t);
    if (!spec) cache.set(t, (spec = specOf(t, choice)));
    return spec;
  });
}

function specOf(t: Tool, choice: ToolSetChoice): ToolSpec {
  return choice === "lean"
    ? { name: t.name, description: t.brief ?? t.description, parameters: leanSchema(t) }
    : { name: t.name, description: t.description, parameters: jsonSchemaOf(t) };
}

/**
 * Tools whose output is lines to page through. "budget": the tool takes the agent's output
 * budget (ToolContext.outputBudget) and ends at a line within it with its own continuation
 * hint, so what the model sees is whole. "lines": the agent keeps the first lines that fit,
 * cut at a line. Every other tool's output (a command's) is cut head and tail.
 */
export const PAGED_TOOLS: Readonly<Record<string, "budget" | "lines">> = {
  read: "budget",
  open: "lines",
  scroll: "lines",
  grep: "lines",
  grep_file: "lines",
  find: "lines",
  ls: "lines",
  symbols: "lines",
  lsp: "lines",
  ast_grep: "lines",
  web_fetch: "lines",
  sql_query: "lines",
  sql_tables: "lines",
  sql_describe: "lines",
};

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
export function offeredTools(
  workspace: Workspace,
  offers: (tool: Tool) => boolean,
  choice: ToolSetChoice = "default",
): Tool[] {
  return allTools().filter(
    (t) =>
      offers(t) && offering(workspace, t) === "full" && (choice === "default" || Object.hasOwn(LEAN_TOOLS, t.name)),
  );
}

/** The lean schema of a tool: its everyday arguments only, without their descriptions (the brief says what they are). */
function leanSchema(tool: Tool): Record<string, unknown> {
  const schema = withoutSafeBounds(jsonSchemaOf(tool)) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
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
export function agentToolSpecs(
  workspace: Workspace,
  offers: (tool: Tool) => boolean,
  choice: ToolSetChoice = "default",
): ToolSpec[] {
  return offeredTools(workspace, offers, choice).map((t) => specOf(t, choice));
}
