// MCP over Streamable HTTP, at http://HOST:PORT/mcp. Each client session (the
// Mcp-Session-Id the SDK's transport hands out on initialize) gets its own MCP
// server and transport; a request without a session id gets a fresh pair, which
// is dropped again unless that request initialized a session.
//
// Bound to loopback by default, and then also protected against DNS
// rebinding: a web page the user visits could otherwise reach 127.0.0.1 under a
// name of its own, so requests must name a loopback host (Host header). On any
// address, a request from a browser page (Origin header) must come from a
// loopback origin: no web page elsewhere may drive the server.
//
// A session idle for sessionIdleMs (no request in progress, no open stream) is
// closed, so clients that vanish without DELETE do not pile up.
import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export const MCP_HTTP_PATH = "/mcp";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for 127.0.0.1, ::1, localhost and the rest of 127.0.0.0/8. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h);
}

export interface HttpServeOptions {
  host: string;
  port: number;
  /** Largest request body accepted (413 beyond it). */
  maxBodyBytes: number;
  /** A session with no request in progress for this long is closed. */
  sessionIdleMs: number;
  /** A new MCP server for a new client session. */
  newServer: () => Server;
  log: (line: string) => void;
}

export interface RunningHttpServer {
  url: string;
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** Requests (including open GET streams) not yet finished. */
  inFlight: number;
  lastActive: number;
}

function jsonError(res: http.ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

/** Why a request is refused by the DNS-rebinding check (Host), or undefined. */
function hostRefusal(req: http.IncomingMessage): string | undefined {
  const host = req.headers.host ?? "";
  const hostname = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  if (!isLoopbackHost(hostname)) return `Forbidden: Host "${host}" is not a loopback name; connect to 127.0.0.1 or localhost`;
  return undefined;
}

/** Why a request from a web page is refused (its Origin is not loopback), or undefined. */
function originRefusal(req: http.IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null") {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname;
    } catch {
      return `Forbidden: invalid Origin "${origin}"`;
    }
    if (!isLoopbackHost(originHost)) return `Forbidden: Origin "${origin}" is not a loopback origin`;
  }
  return undefined;
}

export async function serveHttp(opts: HttpServeOptions): Promise<RunningHttpServer> {
  const sessions = new Map<string, Session>();
  const guardRebinding = isLoopbackHost(opts.host);

  async function newSession(): Promise<Session> {
    const server = opts.newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, session),
      maxRequestBodySize: opts.maxBodyBytes,
    });
    const session: Session = { server, transport, inFlight: 0, lastActive: Date.now() };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_HTTP_PATH) {
      jsonError(res, 404, -32000, `Not Found: the MCP endpoint is ${MCP_HTTP_PATH}`);
      return;
    }
    const refusal = (guardRebinding ? hostRefusal(req) : undefined) ?? originRefusal(req);
    if (refusal) {
      jsonError(res, 403, -32000, refusal);
      return;
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = sessions.get(id);
      if (!session) {
        jsonError(res, 404, -32001, "Session not found: initialize a new session");
        return;
      }
      session.inFlight++;
      res.once("close", () => {
        session.inFlight--;
        session.lastActive = Date.now();
      });
      await session.transport.handleRequest(req, res);
      return;
    }
    // No session yet: only an initialize request starts one; the transport
    // answers anything else with the proper error, and the pair is dropped.
    const session = await newSession();
    await session.transport.handleRequest(req, res);
    if (!session.transport.sessionId) await session.server.close();
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      opts.log(`HTTP request failed: ${(e as Error).stack ?? String(e)}`);
      jsonError(res, 500, -32603, "Internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(opts.port, opts.host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (s.inFlight > 0 || now - s.lastActive < opts.sessionIdleMs) continue;
      sessions.delete(id);
      opts.log(`closed MCP session ${id}: idle for ${Math.round((now - s.lastActive) / 1000)} s`);
      void s.server.close().catch(() => undefined);
    }
  }, Math.max(10, Math.min(60_000, opts.sessionIdleMs / 4)));
  sweeper.unref();
  const addr = httpServer.address() as AddressInfo;
  const hostInUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostInUrl}:${addr.port}${MCP_HTTP_PATH}`,
    async close() {
      clearInterval(sweeper);
      for (const s of sessions.values()) await s.server.close().catch(() => undefined);
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
