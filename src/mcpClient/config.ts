// The user's MCP servers, in Claude Code's format: {"mcpServers": {NAME:
// {command, args, env} | {type: "http" | "sse", url, headers}}}, from the project's
// `.mcp.json` (trusted folders only, and only while none of the folder's
// extension files changed since: a repository could otherwise make rt start
// any program), the user's `~/.config/rt/mcp.json`, and `mcpServers` in rt's
// configuration (the project's part of which applies only when trusted, as
// every key configTrust.ts does not call harmless). Later sources win by
// server name: user file, rt's configuration, then the project's file.
//
// ${VAR} in a value is expanded from the environment. In the user's own
// sources every variable expands; in a project's, only the variables the
// user's own configuration lists in `mcp_env_allowlist` (a file chosen by a
// repository must not put, say, a token into a header sent to a URL it
// chooses). Another variable expands to its ${VAR:-default}, else to nothing,
// and the server's entry says which were withheld.
import path from "node:path";
import * as z from "zod";
import type { Workspace } from "../workspace/workspace.js";
import { userConfigDir } from "../base/trustStore.js";
import { readRegularFile } from "../extensions/definitionFiles.js";
import { MCP_CLIENT_CONNECT_TIMEOUT_MAX_S } from "../base/limits.js";

/** How long starting the server (connect, initialize, the first listings) may take, in seconds (Codex's name). */
const startupTimeout = z.number().positive().max(MCP_CLIENT_CONNECT_TIMEOUT_MAX_S).optional();

const StdioServer = z
  .object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    startup_timeout_sec: startupTimeout,
  })
  .loose();
const HttpServer = z
  .object({
    type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
    // Checked as a URL after ${VAR} expansion (below): "${API_BASE}/mcp" is not a URL until then.
    url: z.string().min(1),
    headers: z.record(z.string(), z.string()).default({}),
    startup_timeout_sec: startupTimeout,
  })
  .loose();

export type McpServerConfig =
  | {
      name: string;
      transport: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      origin: string;
      /** How long starting it may take (default MCP_CLIENT_CONNECT_TIMEOUT_MS). */
      startupTimeoutMs?: number;
    }
  | {
      name: string;
      transport: "http" | "sse";
      url: string;
      headers: Record<string, string>;
      origin: string;
      startupTimeoutMs?: number;
    };

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

const VAR_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * ${VAR} and ${VAR:-default} in a value, from the environment (Claude Code
 * expands them too). With `allowed`, a variable not in it is not read: its
 * default (or nothing) stands in, and its name is added to `withheld`.
 */
function expand(value: string, env: NodeJS.ProcessEnv, allowed?: ReadonlySet<string>, withheld?: Set<string>): string {
  return value.replace(VAR_REF, (_, name: string, dflt: string | undefined) => {
    if (allowed && !allowed.has(name)) {
      withheld?.add(name);
      return dflt ?? "";
    }
    return env[name] ?? dflt ?? "";
  });
}

/** The variables a value names with ${VAR} (for `rt trust`, which shows what a server would receive). */
export function variablesIn(value: string): string[] {
  return [...value.matchAll(VAR_REF)].map((m) => m[1]);
}

/**
 * The servers of one {"mcpServers": {...}} object. `allowed`: the only
 * variables ${VAR} may expand (a project's sources); undefined: all (the user's).
 */
export function serversFrom(
  data: unknown,
  origin: string,
  env: NodeJS.ProcessEnv,
  out: McpServersLoad,
  allowed?: ReadonlySet<string>,
): Map<string, McpServerConfig> {
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
    const parsed = (isHttp ? HttpServer : StdioServer).safeParse(raw);
    if (!parsed.success) {
      out.problems.push({
        origin,
        server: name,
        message: parsed.error.issues.map((i) => `${i.path.join(".") || "(server)"}: ${i.message}`).join("; "),
      });
      continue;
    }
    const d = parsed.data as Record<string, unknown>;
    const withheld = new Set<string>();
    const x = (v: string) => expand(v, env, allowed, withheld);
    const startup = typeof d.startup_timeout_sec === "number" ? { startupTimeoutMs: d.startup_timeout_sec * 1000 } : {};
    if (isHttp) {
      const headers = Object.fromEntries(
        Object.entries(d.headers as Record<string, string>).map(([k, v]) => [k, x(v)]),
      );
      const url = x(d.url as string);
      if (!URL.canParse(url)) {
        out.problems.push({
          origin,
          server: name,
          message: `url: ${JSON.stringify(url)} is not a URL${url !== d.url ? ` (after expanding ${JSON.stringify(d.url)})` : ""}`,
        });
        continue;
      }
      found.set(name, { name, transport: d.type === "sse" ? "sse" : "http", url, headers, origin, ...startup });
    } else {
      const envVars = Object.fromEntries(Object.entries(d.env as Record<string, string>).map(([k, v]) => [k, x(v)]));
      found.set(name, {
        name,
        transport: "stdio",
        command: x(d.command as string),
        args: (d.args as string[]).map(x),
        env: envVars,
        ...(d.cwd ? { cwd: d.cwd as string } : {}),
        origin,
        ...startup,
      });
    }
    if (withheld.size) {
      const names = [...withheld]
        .sort()
        .map((v) => `\${${v}}`)
        .join(", ");
      out.problems.push({
        origin,
        server: name,
        message: `${names} not expanded: a project's MCP configuration gets only the environment variables your own configuration lists in mcp_env_allowlist`,
      });
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
  const { inspectProject, projectExtensionsTrusted } = await import("../base/config.js");
  let allowed: ReadonlySet<string> = new Set();
  try {
    const inspection = inspectProject(ws);
    const list = inspection.user.mcp_env_allowlist;
    allowed = new Set(Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : []);
    add(serversFrom(inspection.user, "rt configuration (mcpServers)", ws.env, out));
    if (inspection.trust.state === "trusted")
      add(serversFrom(inspection.project, "project .rt/config.json (mcpServers)", ws.env, out, allowed));
  } catch (e) {
    out.problems.push({ origin: "rt configuration", message: (e as Error).message });
  }
  if (projectExtensionsTrusted(ws))
    add(serversFrom(readJson(files.project, true, out), files.project, ws.env, out, allowed));
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
