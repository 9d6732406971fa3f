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
import { rankTools } from "../tools/shared/toolSearch.js";
import { MCP_LAZY_ABOVE_TOOLS, MCP_SEARCH_MAX_RESULTS } from "../base/limits.js";
import { loadMcpServers, type McpConfigProblem, type McpServerConfig } from "./config.js";
import {
  McpServerConnection,
  qualifiedName,
  remoteToolAsTool,
  type RemotePrompt,
  type ServerStatus,
} from "./manager.js";

export interface McpClientOptions {
  /** true: always mcp_search; false: never; "auto" (default): above lazyAbove tools. */
  lazy?: boolean | "auto";
  lazyAbove?: number;
  /** Connect only these servers (rt mcp call). */
  only?: string[];
  /** Servers beyond the configured ones: those an editor passes with an ACP session (the user's own choice). */
  extra?: McpServerConfig[];
}

export interface AgentToolProvider {
  offered(): readonly Tool[];
  find(name: string): Tool | undefined;
  /** Tools offered only once found by a search (the agent's tool_search searches them too). */
  deferred?(): readonly Tool[];
}

export class McpClientSession {
  readonly connections: McpServerConnection[] = [];
  readonly tools = new Map<string, Tool>();
  readonly lookedUp = new Set<string>();
  problems: McpConfigProblem[] = [];
  untrustedProjectFile?: string;
  lazy = false;
  readonly searchTool: Tool;
  readonly resourceTool: Tool;

  constructor() {
    this.searchTool = mcpSearchTool(this);
    this.resourceTool = mcpResourcesTool(this);
  }

  /** Whether any connected server offers resources (the agent is then offered mcp_resources). */
  get hasResources(): boolean {
    return this.connections.some((c) => c.status.state === "connected" && (c.status.resources?.length ?? 0) > 0);
  }

  /**
   * The servers' prompts as slash commands: /mcp__SERVER__PROMPT, as Claude Code names them.
   */
  promptCommands(): Array<{ command: string; server: string; prompt: RemotePrompt; conn: McpServerConnection }> {
    return this.connections.flatMap((conn) =>
      (conn.status.prompts ?? []).map((prompt) => ({
        command: qualifiedName(conn.config.name, prompt.name),
        server: conn.config.name,
        prompt,
        conn,
      })),
    );
  }

  /**
   * The text of `/mcp__SERVER__PROMPT args`: the words after the name fill the
   * prompt's arguments in order (the last takes the rest), quoted words kept
   * whole; undefined when no server has such a prompt.
   */
  async promptText(line: string): Promise<string | undefined> {
    const m = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
    if (!m) return undefined;
    const found = this.promptCommands().find((p) => p.command === m[1]);
    if (!found) return undefined;
    const words = m[2].match(/"[^"]*"|'[^']*'|\S+/g)?.map((w) => w.replace(/^(["'])(.*)\1$/, "$2")) ?? [];
    const names = (found.prompt.arguments ?? []).map((a) => a.name);
    const args: Record<string, string> = {};
    names.forEach((name, i) => {
      const value = i === names.length - 1 ? words.slice(i).join(" ") : words[i];
      if (value !== undefined && value !== "") args[name] = value;
    });
    const missing = (found.prompt.arguments ?? [])
      .filter((a) => a.required && args[a.name] === undefined)
      .map((a) => a.name);
    if (missing.length)
      throw new Error(`/${found.command} needs ${missing.join(", ")} (arguments: ${names.join(" ") || "none"})`);
    return found.conn.getPrompt(found.prompt.name, args);
  }

  statuses(): ServerStatus[] {
    return this.connections.map((c) => c.status);
  }

  /** What the agent is offered: every MCP tool, or mcp_search and the tools it found. */
  readonly provider: AgentToolProvider = {
    offered: () => {
      const resources = this.hasResources ? [this.resourceTool] : [];
      if (this.tools.size === 0) return resources;
      if (!this.lazy) return [...this.tools.values(), ...resources];
      return [this.searchTool, ...[...this.lookedUp].map((n) => this.tools.get(n)!).filter(Boolean), ...resources];
    },
    find: (name) => {
      if (name === this.searchTool.name && this.tools.size) return this.searchTool;
      if (name === this.resourceTool.name && this.hasResources) return this.resourceTool;
      return this.tools.get(name);
    },
    deferred: () => (this.lazy ? [...this.tools.values()].filter((t) => !this.lookedUp.has(t.name)) : []),
  };

  /** Tools matching a query (any word in the name or description, best first); "select:a,b" names tools exactly. */
  search(query: string, limit = MCP_SEARCH_MAX_RESULTS): Tool[] {
    return rankTools(this.tools.values(), query, limit);
  }

  async close(): Promise<void> {
    running.delete(this);
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

/** The sessions of this process that are connected, for the faces that expand their prompts (slash commands). */
const running = new Set<McpClientSession>();

/** `/mcp__SERVER__PROMPT args` as the prompt's text, from whichever running session has it; undefined: none has. */
export async function mcpPromptText(line: string): Promise<string | undefined> {
  for (const session of running) {
    const text = await session.promptText(line);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** `@server:uri` in a prompt: a connected server's name, a colon, the resource's URI (Claude Code's mention). */
const RESOURCE_MENTION = /(^|\s)@([A-Za-z0-9_.-]+):(\S+)/g;

/**
 * A prompt with its `@server:uri` mentions of the running sessions' servers
 * attached: each resource's text after the prompt, the mention kept. A mention
 * of a name that is no connected server is left as written; a resource that
 * cannot be read is a problem to say (the prompt is still sent, without it).
 */
export async function expandResourceMentions(
  text: string,
  signal?: AbortSignal,
): Promise<{ prompt: string; problems: string[] }> {
  const problems: string[] = [];
  const attached: string[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(RESOURCE_MENTION)) {
    const [server, uri] = [m[2], m[3].replace(/[.,;:!?)]+$/, "")];
    const conn = [...running]
      .flatMap((s) => s.connections)
      .find((c) => c.config.name === server && c.status.state === "connected");
    if (!conn || seen.has(`${server}\0${uri}`)) continue;
    seen.add(`${server}\0${uri}`);
    const r = await conn.readResource(uri, signal);
    if (r.success) attached.push(`<resource server="${server}" uri="${uri}">\n${r.output.trimEnd()}\n</resource>`);
    else problems.push(`@${server}:${uri} was not attached: ${r.error ?? "it could not be read"}`);
  }
  return { prompt: attached.length ? `${text}\n\n${attached.join("\n")}` : text, problems };
}

/** Every slash command the running sessions' prompts make, with its description. */
export function mcpPromptCommands(): Array<{ command: string; description: string }> {
  return [...running].flatMap((s) =>
    s.promptCommands().map((p) => ({
      command: p.command,
      description: p.prompt.description ?? `prompt ${p.prompt.name} of MCP server ${p.server}`,
    })),
  );
}

function mcpResourcesTool(session: McpClientSession): Tool {
  return defineTool({
    name: "mcp_resources",
    aliases: [],
    description:
      "The resources of the user's MCP servers (files, records, documents a server exposes by URI): without uri, lists them (server, uri, name, description); with uri, reads one. Name the server when two servers could have the URI.",
    schema: () =>
      z
        .object({
          server: z.string().min(1).optional().describe("Only this server's resources"),
          uri: z.string().min(1).optional().describe("Read this resource (as listed)"),
        })
        .strict(),
    readOnly: true,
    async handler(args, ctx) {
      const connected = session.connections.filter(
        (c) => c.status.state === "connected" && (!args.server || c.config.name === args.server),
      );
      if (args.server && !connected.length) {
        const names = session.connections.map((c) => c.config.name);
        return {
          success: false,
          output: "",
          error: `no connected MCP server ${args.server}; servers: ${names.join(", ") || "none"}`,
          error_type: "usage",
        };
      }
      if (!args.uri) {
        const list = connected.flatMap((c) => (c.status.resources ?? []).map((r) => ({ server: c.config.name, ...r })));
        return ok(
          list.length
            ? list
                .map(
                  (r) =>
                    `${r.server} ${r.uri}${r.name ? `  ${r.name}` : ""}${r.description ? ` — ${r.description}` : ""}`,
                )
                .join("\n")
            : "no resources",
          { resources: list },
        );
      }
      const owner =
        connected.find((c) => c.status.resources?.some((r) => r.uri === args.uri)) ??
        (connected.length === 1 ? connected[0] : undefined);
      if (!owner)
        return {
          success: false,
          output: "",
          error: `no server lists ${args.uri}; name the server (server: NAME) or list the resources first`,
          error_type: "usage",
        };
      return owner.readResource(args.uri, ctx.signal);
    },
  });
}

function mcpSearchTool(session: McpClientSession): Tool {
  return defineTool({
    name: "mcp_search",
    aliases: [],
    description:
      'Find tools of the user\'s MCP servers (named mcp__SERVER__TOOL) by keywords, or exactly with "select:NAME,NAME". Returns their names, descriptions and argument schemas; the tools found can be called from your next step.',
    schema: () =>
      z
        .object({
          query: z.string().min(1).describe("Keywords, or select:NAME,NAME"),
          limit: z
            .number()
            .int()
            .min(1)
            .max(50)
            .optional()
            .describe(`At most this many (default ${MCP_SEARCH_MAX_RESULTS})`),
        })
        .strict(),
    readOnly: true,
    async handler(args) {
      const found = session.search(args.query, args.limit);
      for (const t of found) session.lookedUp.add(t.name);
      if (!found.length) {
        const servers = session
          .statuses()
          .filter((s) => s.state === "connected")
          .map((s) => `${s.name} (${s.tools.length})`);
        return ok(
          `no MCP tool matches ${JSON.stringify(args.query)}; servers: ${servers.join(", ") || "none connected"}. Try other words.`,
          { tools: [] },
        );
      }
      const list = found.map((t) => ({
        name: t.name,
        description: t.description,
        read_only: t.readOnly,
        input_schema: jsonSchemaOf(t),
      }));
      return ok(`${found.length} tool(s), callable from your next step:\n${JSON.stringify(list, null, 1)}`, {
        tools: list.map((t) => t.name),
      });
    },
  });
}

/** Connects the configured servers and builds their tools. Never throws: failures are in the statuses and problems. */
export async function startMcpClients(ws: Workspace, opts: McpClientOptions = {}): Promise<McpClientSession> {
  const session = new McpClientSession();
  const load = await loadMcpServers(ws);
  session.problems = load.problems;
  if (load.untrustedProjectFile) session.untrustedProjectFile = load.untrustedProjectFile;
  const configured = [
    ...load.servers,
    ...(opts.extra ?? []).filter((e) => !load.servers.some((s) => s.name === e.name)),
  ];
  const servers = opts.only ? configured.filter((s) => opts.only!.includes(s.name)) : configured;
  for (const s of servers) session.connections.push(new McpServerConnection(s));
  await Promise.all(session.connections.map((c) => c.connect(ws)));
  for (const conn of session.connections) {
    for (const remote of conn.status.tools) {
      const tool = await remoteToolAsTool(conn, remote);
      if (!session.tools.has(tool.name)) session.tools.set(tool.name, tool);
    }
  }
  running.add(session);
  const lazyAbove = opts.lazyAbove ?? MCP_LAZY_ABOVE_TOOLS;
  session.lazy = opts.lazy === true || ((opts.lazy ?? "auto") === "auto" && session.tools.size > lazyAbove);
  return session;
}

/** The `mcp` section of rt's configuration: { lazy: true | false | "auto", lazy_above: N }. */
export function mcpOptionsFrom(config: Record<string, unknown>): McpClientOptions {
  const m = (config.mcp ?? {}) as { lazy?: unknown; lazy_above?: unknown };
  const out: McpClientOptions = {};
  if (m.lazy === true || m.lazy === false || m.lazy === "auto") out.lazy = m.lazy;
  if (typeof m.lazy_above === "number" && Number.isInteger(m.lazy_above) && m.lazy_above >= 0)
    out.lazyAbove = m.lazy_above;
  return out;
}
