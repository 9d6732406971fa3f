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
// Every request must carry the server's bearer token (auth.ts) unless it was
// started with --no-auth: loopback is shared by every user of the machine.
//
// A session idle for sessionIdleMs (no request in progress, no open stream) is
// closed, so clients that vanish without DELETE do not pile up. At most
// maxSessions are live: a new session first closes the least recently used
// idle one (no call in progress; an open notification stream does not count),
// and is refused (503) when every session is busy. When a client cancels a
// request (notifications/cancelled), rt sends no answer for it (the MCP
// specification says so), so its response stream is closed right away;
// otherwise it would stay open until the client hung up, and keep the session
// from ever being idle.
//
// POST bodies are read here (up to maxBodyBytes) rather than by the SDK's
// transport, which is handed the parsed message: rt needs to see whether a
// request initializes a session (the cap) and which requests a POST carries
// (cancellation).
import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { authorizationMatches } from "./auth.js";
import { jsonError } from "./protocol.js";

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
  /** Live sessions at most (the least recently used idle one makes room for a new one). */
  maxSessions: number;
  /** The bearer token every request must carry; undefined serves without authentication (--no-auth). */
  token: string | undefined;
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
  /** Of those, the ones that are not the client's GET notification stream: calls in progress. */
  busy: number;
  lastActive: number;
  /** The JSON-RPC requests of each POST still in progress, by request id. */
  posts: Map<string | number, { ids: Array<string | number> }>;
}

type JsonRpcLike = { method?: unknown; id?: unknown; params?: unknown };

/** The messages of a parsed POST body (one message or a batch). */
function messagesOf(body: unknown): JsonRpcLike[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is JsonRpcLike => typeof m === "object" && m !== null);
}

function isJsonContentType(value: string | undefined): boolean {
  return (value ?? "").split(";")[0].trim().toLowerCase() === "application/json";
}

/** Reads a request body up to `max` bytes: its text, or why there is none. */
function readBody(
  req: http.IncomingMessage,
  max: number,
): Promise<{ text: string } | { tooLarge: true } | { aborted: true }> {
  return new Promise((resolve) => {
    if (Number(req.headers["content-length"]) > max) {
      req.resume();
      resolve({ tooLarge: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(over ? { tooLarge: true } : { text: Buffer.concat(chunks).toString("utf8") }));
    // The client went away before the whole body arrived (after "end" this changes nothing).
    req.on("close", () => resolve({ aborted: true }));
    req.on("error", () => resolve({ aborted: true }));
  });
}

/** Why a request is refused by the DNS-rebinding check (Host), or undefined. */
function hostRefusal(req: http.IncomingMessage): string | undefined {
  const host = req.headers.host ?? "";
  const hostname = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  if (!isLoopbackHost(hostname))
    return `Forbidden: Host "${host}" is not a loopback name; connect to 127.0.0.1 or localhost`;
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
  /** Sessions whose initialize request is being handled (they count toward the cap). */
  const starting = new Set<Session>();
  const guardRebinding = isLoopbackHost(opts.host);

  async function newSession(): Promise<Session> {
    const server = opts.newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        starting.delete(session);
        sessions.set(id, session);
      },
      maxRequestBodySize: opts.maxBodyBytes,
    });
    const session: Session = { server, transport, inFlight: 0, busy: 0, lastActive: Date.now(), posts: new Map() };
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return session;
  }

  /** Makes room for one more session: true when there is room (closing the least recently used idle session if needed). */
  function makeRoom(): boolean {
    if (sessions.size + starting.size < opts.maxSessions) return true;
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (entry[1].busy === 0 && (!oldest || entry[1].lastActive < oldest[1].lastActive)) oldest = entry;
    }
    if (!oldest) return false;
    const [id, s] = oldest;
    sessions.delete(id);
    opts.log(
      `closed MCP session ${id}: ${opts.maxSessions} sessions were open and it was the least recently used idle one`,
    );
    void s.server.close().catch(() => undefined);
    return true;
  }

  /** After a POST that carried notifications/cancelled: end the response streams of the requests it cancels. */
  function closeCancelled(session: Session, body: unknown): void {
    for (const m of messagesOf(body)) {
      if (m.method !== "notifications/cancelled" || typeof m.params !== "object" || m.params === null) continue;
      const requestId = (m.params as { requestId?: unknown }).requestId;
      if (typeof requestId !== "string" && typeof requestId !== "number") continue;
      const post = session.posts.get(requestId);
      // A batch shares one stream: it stays open for the answers still due.
      if (post && post.ids.length === 1) session.transport.closeSSEStream(requestId);
    }
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
    if (opts.token !== undefined && !authorizationMatches(req.headers.authorization, opts.token)) {
      res.setHeader("www-authenticate", 'Bearer realm="rt mcp"');
      const why = req.headers.authorization === undefined ? "no Authorization header" : "the bearer token is wrong";
      jsonError(
        res,
        401,
        -32000,
        `Unauthorized (${why}): send the token rt mcp printed when it started, as "Authorization: Bearer TOKEN"`,
      );
      return;
    }
    // POST: read and parse the body here (the transport gets the parsed message).
    let body: unknown;
    if (req.method === "POST" && isJsonContentType(req.headers["content-type"])) {
      const read = await readBody(req, opts.maxBodyBytes);
      if ("aborted" in read) return;
      if ("tooLarge" in read) {
        jsonError(res, 413, -32000, `Payload Too Large: Request body must not exceed ${opts.maxBodyBytes} bytes`);
        return;
      }
      try {
        body = JSON.parse(read.text);
      } catch {
        jsonError(res, 400, -32700, "Parse error: Invalid JSON");
        return;
      }
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = sessions.get(id);
      if (!session) {
        jsonError(res, 404, -32001, "Session not found: initialize a new session");
        return;
      }
      const counts = req.method !== "GET";
      const requestIds = messagesOf(body)
        .filter((m) => m.method !== undefined && (typeof m.id === "string" || typeof m.id === "number"))
        .map((m) => m.id as string | number);
      const post = { ids: requestIds };
      for (const r of requestIds) session.posts.set(r, post);
      session.inFlight++;
      if (counts) session.busy++;
      session.lastActive = Date.now();
      res.once("close", () => {
        session.inFlight--;
        if (counts) session.busy--;
        for (const r of requestIds) if (session.posts.get(r) === post) session.posts.delete(r);
        session.lastActive = Date.now();
      });
      await session.transport.handleRequest(req, res, body);
      if (body !== undefined) closeCancelled(session, body);
      return;
    }
    // No session yet: only an initialize request starts one; the transport
    // answers anything else with the proper error, and the pair is dropped.
    const initializing = messagesOf(body).some((m) => m.method === "initialize");
    if (initializing && !makeRoom()) {
      jsonError(
        res,
        503,
        -32000,
        `Too many sessions: ${opts.maxSessions} MCP sessions are open and each has a call in progress; end one (DELETE ${MCP_HTTP_PATH} with its Mcp-Session-Id) or try again when a call finishes`,
      );
      return;
    }
    const session = await newSession();
    if (initializing) starting.add(session);
    try {
      await session.transport.handleRequest(req, res, body);
    } finally {
      starting.delete(session);
    }
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
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) {
        if (s.inFlight > 0 || now - s.lastActive < opts.sessionIdleMs) continue;
        sessions.delete(id);
        opts.log(`closed MCP session ${id}: idle for ${Math.round((now - s.lastActive) / 1000)} s`);
        void s.server.close().catch(() => undefined);
      }
    },
    Math.max(10, Math.min(60_000, opts.sessionIdleMs / 4)),
  );
  sweeper.unref();
  const addr = httpServer.address() as AddressInfo;
  const hostInUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostInUrl}:${addr.port}${MCP_HTTP_PATH}`,
    async close() {
      clearInterval(sweeper);
      for (const s of [...sessions.values(), ...starting]) await s.server.close().catch(() => undefined);
      sessions.clear();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
