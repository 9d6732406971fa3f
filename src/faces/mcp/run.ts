// `rt mcp`: serve every rt tool to an MCP client, over stdio (the default: the
// client starts rt as a child process) or Streamable HTTP (`--http`), until the
// client hangs up (stdio) or rt is stopped (HTTP: SIGINT, SIGTERM).
// Standard output belongs to the protocol in stdio mode: everything rt has to
// say goes to standard error.
import { warmTools } from "../../tools/shared/warmUp.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { Io } from "../../ui/io.js";
import { MCP_HTTP_MAX_SESSIONS, MCP_HTTP_SESSION_IDLE_MS, MCP_MAX_MESSAGE_BYTES } from "../../base/limits.js";
import { newToken, removeTokenFile, writeTokenFile } from "./auth.js";
import { createMcpServer } from "./server.js";
import { McpSession, WorkspacePool } from "./session.js";
import { mcpToolList } from "./toolList.js";
import { LineStdioTransport } from "./stdioTransport.js";
import { isLoopbackHost, serveHttp } from "./httpServer.js";

export const MCP_DEFAULT_HOST = "127.0.0.1";
export const MCP_DEFAULT_PORT = 7341;

export interface McpOptions {
  http?: boolean;
  port?: number;
  host?: string;
  /** --no-auth: serve HTTP without the bearer token. */
  noAuth?: boolean;
  /** List the older tool names some clients call (open_file_chunk, search_dir...) and the compatibility tools too. */
  seedNames?: boolean;
  /** --agent: offer rt_agent, rt's own agent as one tool. */
  agent?: boolean;
}

/** Checks the command line; returns a usage error message or undefined. */
export function mcpUsageProblem(o: McpOptions): string | undefined {
  if (!o.http && (o.port !== undefined || o.host !== undefined))
    return "--port and --host only apply with --http (stdio needs neither)";
  if (!o.http && o.noAuth) return "--no-auth only applies with --http (stdio has no network to authenticate)";
  if (o.port !== undefined && o.port > 65535) return `--port must be at most 65535, not ${o.port}`;
  if (o.host !== undefined && o.host.trim() === "") return "--host needs an address, e.g. 127.0.0.1";
  return undefined;
}

/**
 * A long-running server must not die of one bad request: an error that escapes
 * a handler is logged, and serving goes on.
 */
/** How long an idle HTTP session lives: RT_MCP_SESSION_IDLE_MS when it is a positive number, else the default. */
function sessionIdleMs(): number {
  const n = Number(process.env.RT_MCP_SESSION_IDLE_MS);
  return Number.isFinite(n) && n > 0 ? n : MCP_HTTP_SESSION_IDLE_MS;
}

function keepServing(log: (line: string) => void): void {
  process.on("unhandledRejection", (e) => log(`internal error (still serving): ${(e as Error)?.stack ?? String(e)}`));
  process.on("uncaughtException", (e) => log(`internal error (still serving): ${e.stack ?? String(e)}`));
  // Logging must not fail in turn (a closed stderr would otherwise loop through the handlers above).
  process.stderr.on("error", () => undefined);
}

/**
 * Once serving is over the process should end, even if something still holds
 * the event loop (a background shell the client started, the paused stdin):
 * exit right after main() has set the exit code.
 */
function exitWhenDone(): void {
  setImmediate(() => process.exit());
}

export async function runMcp(
  workspace: Workspace,
  values: Record<string, unknown>,
  io: Io,
  version: string,
): Promise<number> {
  const opts: McpOptions = {
    http: values.http === true,
    port: typeof values.port === "number" ? values.port : undefined,
    host: typeof values.host === "string" ? values.host : undefined,
    noAuth: values["no-auth"] === true,
    seedNames: values["seed-names"] === true,
    agent: values.agent === true,
  };
  const problem = mcpUsageProblem(opts);
  if (problem) {
    io.stderr(`rt mcp: ${problem}\nUsage: rt mcp [--http [--port N] [--host ADDR] [--no-auth]] [--seed-names]\n`);
    return 2;
  }
  const log = (line: string) => io.stderr(`rt mcp: ${line}\n`);
  keepServing(log);
  const pool = new WorkspacePool(workspace);
  const tools = mcpToolList(workspace, { seedNames: opts.seedNames });
  // --agent: rt_agent runs the agent with these flags (and the configuration, as rt run would).
  const agentFlags = opts.agent
    ? Object.fromEntries(
        ["model", "protocol", "max-turns", "base-url", "api-key"]
          .filter((k) => values[k] !== undefined)
          .map((k) => [k, values[k] as string | number]),
      )
    : undefined;
  const newServer = () =>
    createMcpServer({
      version,
      tools,
      session: new McpSession(pool, log),
      ...(agentFlags ? { agent: agentFlags } : {}),
    });
  const about = `root ${workspace.root}, profile ${workspace.profile}, ${tools.length + (opts.agent ? 1 : 0)} tools${opts.agent ? ", rt_agent among them" : ""}`;

  if (!opts.http) {
    const transport = new LineStdioTransport(process.stdin, process.stdout, MCP_MAX_MESSAGE_BYTES);
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    // A client that went away makes writes fail (EPIPE): there is no one left to serve.
    process.stdout.on("error", () => void transport.close());
    await newServer().connect(transport);
    log(`serving over stdio (${about})`);
    // While the client waits for its model, load what the first calls would (tools/shared/warmUp.ts).
    void warmTools(
      workspace,
      tools.map((t) => t.tool),
    );
    await closed;
    exitWhenDone();
    return 0;
  }

  const host = opts.host ?? MCP_DEFAULT_HOST;
  if (!isLoopbackHost(host)) {
    io.stderr(
      `rt mcp: WARNING: listening on ${host}, not on loopback: anyone who can reach this address can read and edit the files under ${workspace.root}` +
        `${workspace.profile === "safe-read-only" ? " (read only: safe-read-only profile)" : ""}${opts.noAuth ? " without any token" : " if they learn the token"} (plain HTTP: the token crosses the network unencrypted); prefer the default 127.0.0.1.\n`,
    );
  }
  const token = opts.noAuth ? undefined : newToken();
  let running;
  try {
    running = await serveHttp({
      host,
      port: opts.port ?? MCP_DEFAULT_PORT,
      maxBodyBytes: MCP_MAX_MESSAGE_BYTES,
      sessionIdleMs: sessionIdleMs(),
      maxSessions: MCP_HTTP_MAX_SESSIONS,
      token,
      newServer,
      log,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === "EADDRINUSE"
        ? `port ${opts.port ?? MCP_DEFAULT_PORT} is in use; choose another with --port N (0 picks a free one)`
        : err.message;
    io.stderr(`rt mcp: cannot listen on ${host}: ${why}\n`);
    return 1;
  }
  let tokenFile: string | undefined;
  if (token === undefined) {
    io.stderr(
      `rt mcp: WARNING: --no-auth: no token is required, so any user or program on this machine that can connect to ${running.url} can run rt's tools` +
        `${workspace.profile === "safe-read-only" ? "" : ", bash included,"} as you, in ${workspace.root}.\n`,
    );
  } else {
    const file = writeTokenFile(token, Number(new URL(running.url).port), workspace.root);
    tokenFile = file.path;
    log(`bearer token: ${token}`);
    log(
      file.path !== undefined
        ? `token file: ${file.path} (mode 0600, removed when the server stops); clients send "Authorization: Bearer <token>"`
        : `the token was not written to a file (${file.reason}); clients send "Authorization: Bearer <token>"`,
    );
  }
  // The handlers are in place before the address is printed: whoever waits
  // for that line may stop the server right after it.
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log(`listening on ${running.url} (${about})`);
  void warmTools(
    workspace,
    tools.map((t) => t.tool),
  );
  await stopped;
  await running.close();
  if (tokenFile !== undefined && token !== undefined) removeTokenFile(tokenFile, token);
  exitWhenDone();
  return 0;
}
