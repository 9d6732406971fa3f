// The user's MCP servers for one rt process: every configured server
// connected (in parallel; one that fails is reported and skipped), its tools
// as rt tools, and how they are offered to the agent. With few tools, all are
// offered; above `mcp.lazy_above` tools (default MCP_LAZY_ABOVE_TOOLS), or
// with `mcp.lazy: true`, the agent sees one `mcp_search {query}` tool that
// returns matching tools' names and schemas, and each tool it found is offered
// from the next request on (Claude Code's Tool Search): dozens of servers'
// schemas no longer fill the context.
import * as z from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { defineTool, ok, type Tool } from "../tools/types.js";
import { jsonSchemaOf } from "../tools/registry.js";
import { MCP_LAZY_ABOVE_TOOLS, MCP_SEARCH_MAX_RESULTS } from "../limits.js";
import { loadMcpServers, type McpConfigProblem } from "./config.js";
import { McpServerConnection, remoteToolAsTool, type ServerStatus } from "./manager.js";

export interface McpClientOptions {
  /** true: always mcp_search; false: never; "auto" (default): above lazyAbove tools. */
  lazy?: boolean | "auto";
  lazyAbove?: number;
  /** Connect only these servers (rt mcp call). */
  only?: string[];
}

export interface AgentToolProvider {
  offered(): readonly Tool[];
  find(name: string): Tool | undefined;
}

export class McpClientSession {
  readonly connections: McpServerConnection[] = [];
  readonly tools = new Map<string, Tool>();
  readonly lookedUp = new Set<string>();
  problems: McpConfigProblem[] = [];
  untrustedProjectFile?: string;
  lazy = false;
  readonly searchTool: Tool;

  constructor() {
    this.searchTool = mcpSearchTool(this);
  }

  statuses(): ServerStatus[] {
    return this.connections.map((c) => c.status);
  }

  /** What the agent is offered: every MCP tool, or mcp_search and the tools it found. */
  readonly provider: AgentToolProvider = {
    offered: () => {
      if (this.tools.size === 0) return [];
      if (!this.lazy) return [...this.tools.values()];
      return [this.searchTool, ...[...this.lookedUp].map((n) => this.tools.get(n)!).filter(Boolean)];
    },
    find: (name) => (name === this.searchTool.name && this.tools.size ? this.searchTool : this.tools.get(name)),
  };

  /** Tools matching a query: every word must occur in the name or description (case-insensitive), best first; "select:a,b" names tools exactly. */
  search(query: string, limit = MCP_SEARCH_MAX_RESULTS): Tool[] {
    const q = query.trim();
    if (q.startsWith("select:")) {
      return q.slice(7).split(",").map((n) => this.tools.get(n.trim())).filter((t): t is Tool => t !== undefined).slice(0, limit);
    }
    const words = q.toLowerCase().split(/[\s,]+/).filter(Boolean);
    const scored: Array<{ t: Tool; score: number }> = [];
    for (const t of this.tools.values()) {
      const name = t.name.toLowerCase();
      const desc = t.description.toLowerCase();
      let score = 0;
      for (const w of words) {
        if (name.includes(w)) score += 3;
        else if (desc.includes(w)) score += 1;
      }
      if (score > 0) scored.push({ t, score });
    }
    return scored.sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name)).slice(0, limit).map((s) => s.t);
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

function mcpSearchTool(session: McpClientSession): Tool {
  return defineTool({
    name: "mcp_search",
    aliases: [],
    description:
      "Find tools of the user's MCP servers (named mcp__SERVER__TOOL) by keywords, or exactly with \"select:NAME,NAME\". Returns their names, descriptions and argument schemas; the tools found can be called from your next step.",
    schema: () =>
      z
        .object({
          query: z.string().min(1).describe("Keywords, or select:NAME,NAME"),
          limit: z.number().int().min(1).max(50).optional().describe(`At most this many (default ${MCP_SEARCH_MAX_RESULTS})`),
        })
        .strict(),
    readOnly: true,
    async handler(args) {
      const found = session.search(args.query, args.limit);
      for (const t of found) session.lookedUp.add(t.name);
      if (!found.length) {
        const servers = session.statuses().filter((s) => s.state === "connected").map((s) => `${s.name} (${s.tools.length})`);
        return ok(`no MCP tool matches ${JSON.stringify(args.query)}; servers: ${servers.join(", ") || "none connected"}. Try other words.`, { tools: [] });
      }
      const list = found.map((t) => ({ name: t.name, description: t.description, read_only: t.readOnly, input_schema: jsonSchemaOf(t) }));
      return ok(`${found.length} tool(s), callable from your next step:\n${JSON.stringify(list, null, 1)}`, { tools: list.map((t) => t.name) });
    },
  });
}

/** Connects the configured servers and builds their tools. Never throws: failures are in the statuses and problems. */
export async function startMcpClients(ws: Workspace, opts: McpClientOptions = {}): Promise<McpClientSession> {
  const session = new McpClientSession();
  const load = await loadMcpServers(ws);
  session.problems = load.problems;
  if (load.untrustedProjectFile) session.untrustedProjectFile = load.untrustedProjectFile;
  const servers = opts.only ? load.servers.filter((s) => opts.only!.includes(s.name)) : load.servers;
  for (const s of servers) session.connections.push(new McpServerConnection(s));
  await Promise.all(session.connections.map((c) => c.connect(ws)));
  for (const conn of session.connections) {
    for (const remote of conn.status.tools) {
      const tool = await remoteToolAsTool(conn, remote);
      if (!session.tools.has(tool.name)) session.tools.set(tool.name, tool);
    }
  }
  const lazyAbove = opts.lazyAbove ?? MCP_LAZY_ABOVE_TOOLS;
  session.lazy = opts.lazy === true || ((opts.lazy ?? "auto") === "auto" && session.tools.size > lazyAbove);
  return session;
}

/** The `mcp` section of rt's configuration: { lazy: true | false | "auto", lazy_above: N }. */
export function mcpOptionsFrom(config: Record<string, unknown>): McpClientOptions {
  const m = (config.mcp ?? {}) as { lazy?: unknown; lazy_above?: unknown };
  const out: McpClientOptions = {};
  if (m.lazy === true || m.lazy === false || m.lazy === "auto") out.lazy = m.lazy;
  if (typeof m.lazy_above === "number" && Number.isInteger(m.lazy_above) && m.lazy_above >= 0) out.lazyAbove = m.lazy_above;
  return out;
}
