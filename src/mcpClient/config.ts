// The user's MCP servers, in Claude Code's format: {"mcpServers": {NAME:
// {command, args, env} | {type: "http", url, headers}}}, from the project's
// `.mcp.json` (trusted folders only: a repository could otherwise make rt
// start any program), the user's `~/.config/rt/mcp.json`, and `mcpServers` in
// rt's configuration (the project's part of which applies only when trusted,
// as every key configTrust.ts does not call harmless). Later sources win by
// server name: user file, rt's configuration, then the project's file.
import path from "node:path";
import * as z from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { userConfigDir } from "../trustStore.js";
import { readRegularFile } from "../extensions/definitionFiles.js";

const StdioServer = z
  .object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
  })
  .loose();
const HttpServer = z
  .object({
    type: z.enum(["http", "streamable-http", "streamableHttp"]).optional(),
    url: z.url(),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .loose();

export type McpServerConfig =
  | { name: string; transport: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string; origin: string }
  | { name: string; transport: "http"; url: string; headers: Record<string, string>; origin: string };

export interface McpConfigProblem {
  origin: string;
  server?: string;
  message: string;
}

export interface McpServersLoad {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
  /** The project's .mcp.json was there but not read: the folder is not trusted. */
  untrustedProjectFile?: string;
}

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** ${VAR} and ${VAR:-default} in a value, from the environment (Claude Code expands them too). */
function expand(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, dflt: string | undefined) => env[name] ?? dflt ?? "");
}

/** The servers of one {"mcpServers": {...}} object. */
export function serversFrom(data: unknown, origin: string, env: NodeJS.ProcessEnv, out: McpServersLoad): Map<string, McpServerConfig> {
  const found = new Map<string, McpServerConfig>();
  if (data === undefined) return found;
  const servers = (data as { mcpServers?: unknown })?.mcpServers ?? (data as { mcp_servers?: unknown })?.mcp_servers;
  if (servers === undefined) return found;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    out.problems.push({ origin, message: "mcpServers must be an object of servers by name" });
    return found;
  }
  for (const [name, raw] of Object.entries(servers as Record<string, unknown>)) {
    if (!SERVER_NAME.test(name)) {
      out.problems.push({ origin, server: name, message: "a server name is letters, digits, _ and - (at most 64)" });
      continue;
    }
    if ((raw as { disabled?: unknown })?.disabled === true) continue;
    const isHttp = typeof (raw as { url?: unknown })?.url === "string";
    if (!isHttp && ["sse"].includes(String((raw as { type?: unknown })?.type))) {
      out.problems.push({ origin, server: name, message: 'type "sse" (the older HTTP+SSE transport) is not supported; use a Streamable HTTP url' });
      continue;
    }
    const parsed = (isHttp ? HttpServer : StdioServer).safeParse(raw);
    if (!parsed.success) {
      out.problems.push({ origin, server: name, message: parsed.error.issues.map((i) => `${i.path.join(".") || "(server)"}: ${i.message}`).join("; ") });
      continue;
    }
    const d = parsed.data as Record<string, unknown>;
    if (isHttp) {
      const headers = Object.fromEntries(Object.entries(d.headers as Record<string, string>).map(([k, v]) => [k, expand(v, env)]));
      found.set(name, { name, transport: "http", url: expand(d.url as string, env), headers, origin });
    } else {
      const envVars = Object.fromEntries(Object.entries(d.env as Record<string, string>).map(([k, v]) => [k, expand(v, env)]));
      found.set(name, { name, transport: "stdio", command: expand(d.command as string, env), args: (d.args as string[]).map((a) => expand(a, env)), env: envVars, ...(d.cwd ? { cwd: d.cwd as string } : {}), origin });
    }
  }
  return found;
}

function readJson(file: string, project: boolean, out: McpServersLoad): unknown {
  let text: string;
  try {
    text = readRegularFile(file, project);
  } catch (e) {
    if (/ENOENT/.test((e as Error).message)) return undefined;
    out.problems.push({ origin: file, message: (e as Error).message });
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    out.problems.push({ origin: file, message: `not valid JSON: ${(e as Error).message}` });
    return undefined;
  }
}

export function mcpConfigFiles(ws: Workspace): { project: string; user: string } {
  return { project: path.join(ws.root, ".mcp.json"), user: path.join(userConfigDir(ws.env), "mcp.json") };
}

/** Every configured server, with what was wrong in each source; never throws. */
export async function loadMcpServers(ws: Workspace): Promise<McpServersLoad> {
  const out: McpServersLoad = { servers: [], problems: [] };
  const files = mcpConfigFiles(ws);
  const byName = new Map<string, McpServerConfig>();
  const add = (m: Map<string, McpServerConfig>) => {
    for (const [k, v] of m) byName.set(k, v);
  };
  add(serversFrom(readJson(files.user, false, out), files.user, ws.env, out));
  const { loadConfigDetailed } = await import("../config.js");
  let trusted = false;
  try {
    const loaded = loadConfigDetailed(ws, { notice: false });
    trusted = loaded.trust.state === "trusted";
    add(serversFrom(loaded.config, "rt configuration (mcpServers)", ws.env, out));
  } catch (e) {
    out.problems.push({ origin: "rt configuration", message: (e as Error).message });
  }
  if (trusted) add(serversFrom(readJson(files.project, true, out), files.project, ws.env, out));
  else {
    try {
      readRegularFile(files.project, true);
      out.untrustedProjectFile = files.project;
    } catch {
      /* none */
    }
  }
  out.servers = [...byName.values()];
  return out;
}
