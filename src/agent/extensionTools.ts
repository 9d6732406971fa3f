// Tools only rt's own agent has, from the extension system: tool_create
// (the agent adds a custom tool to itself) and, from the user's MCP servers,
// mcp_search and the servers' tools. They are not in the registry every face
// lists (rt tools, rt mcp): sessionToolSet (toolSet.ts) adds them to a
// session's offered tools and its lookup.
import type { Tool } from "../tools/types.js";
import { toolCreateTool } from "../extensions/toolCreate.js";

/** Providers of agent-only tools, registered by the extension modules that are loaded (the MCP client adds its own). */
interface ToolProvider {
  offered(): readonly Tool[];
  find(name: string): Tool | undefined;
  /** Tools offered only once a search found them (MCP tools the client defers). */
  deferred?(): readonly Tool[];
}

const providers: ToolProvider[] = [
  { offered: () => [toolCreateTool], find: (name) => (name === toolCreateTool.name ? toolCreateTool : undefined) },
];

export function addAgentToolProvider(p: ToolProvider): () => void {
  providers.push(p);
  return () => {
    const i = providers.indexOf(p);
    if (i >= 0) providers.splice(i, 1);
  };
}

/** The agent-only tools to offer now (a provider may offer more as the session goes on: mcp_search's finds). */
export function agentExtensionTools(): Tool[] {
  return providers.flatMap((p) => p.offered());
}

/** The agent-only tools offered only once found by a search (tool_search looks through them). */
export function agentDeferredExtensionTools(): Tool[] {
  return providers.flatMap((p) => p.deferred?.() ?? []);
}

export function findAgentExtensionTool(name: string): Tool | undefined {
  for (const p of providers) {
    const t = p.find(name);
    if (t) return t;
  }
  return undefined;
}
