// `rt mcp --http` keeps its sessions bounded (issue 9: 5,000 initializes made
// 5,000 live sessions): at most MCP_HTTP_MAX_SESSIONS (64), the least recently
// used idle one closed to make room, a clear refusal when all are busy. And a
// request the client cancels has its response stream closed, so the session
// becomes idle (and is swept) instead of holding a stream open forever.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { execFileSync } from "node:child_process";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { tempTree } from "../helpers.js";
import { makeClient, startHttp, type HttpServer } from "./helpers.js";
import { MCP_HTTP_MAX_SESSIONS } from "../../src/base/limits.ts";

const PROTOCOL = "2025-06-18";
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

interface Raw {
  status: number;
  session: string | undefined;
  /** Resolves with the whole body when the response ends, and the time it ended. */
  ended: Promise<{ text: string; at: number }>;
}

/** A raw POST; resolves as soon as the response head arrives. */
function post(server: HttpServer, body: string, session?: string): Promise<Raw> {
  const headers: Record<string, string> = {
    ...server.auth,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (session) Object.assign(headers, { "mcp-session-id": session, "mcp-protocol-version": PROTOCOL });
  return new Promise((resolve, reject) => {
    const req = http.request(server.url, { method: "POST", headers }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      const ended = new Promise<{ text: string; at: number }>((done) =>
        res.on("close", () => done({ text, at: Date.now() })),
      );
      resolve({ status: res.statusCode ?? 0, session: res.headers["mcp-session-id"] as string | undefined, ended });
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function initialize(server: HttpServer): Promise<string> {
  const r = await post(server, INIT);
  assert.equal(r.status, 200, (await r.ended).text);
  await r.ended;
  assert.ok(r.session);
  const note = await post(server, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), r.session);
  await note.ended;
  return r.session!;
}

let nextId = 100;
async function ping(server: HttpServer, session: string): Promise<number> {
  const r = await post(server, JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "ping" }), session);
  await r.ended;
  return r.status;
}

function bashCall(command: string, id = nextId++): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "bash", arguments: { command } } });
}

const servers: HttpServer[] = [];
after(async () => {
  for (const s of servers) await s.stop();
});

test(`at most ${MCP_HTTP_MAX_SESSIONS} sessions: the least recently used idle one makes room; when all are busy a new one is refused`, async () => {
  assert.equal(MCP_HTTP_MAX_SESSIONS, 64);
  const server = await startHttp(tempTree({ "a.txt": "a\n" }));
  servers.push(server);
  const ids: string[] = [];
  for (let i = 0; i < MCP_HTTP_MAX_SESSIONS; i++) ids.push(await initialize(server));
  // Use the oldest: the second oldest becomes the least recently used.
  assert.equal(await ping(server, ids[0]), 200);
  const newcomer = await initialize(server);
  assert.equal(await ping(server, ids[1]), 404, "the least recently used idle session was closed");
  assert.match(
    server.stderr(),
    new RegExp(`closed MCP session ${ids[1]}: 64 sessions were open and it was the least recently used idle one`),
  );
  for (const id of [ids[0], ids[2], ids[63], newcomer]) assert.equal(await ping(server, id), 200, "the others live on");

  // Every live session busy with a call: a new session is refused, nothing is closed.
  const live = [ids[0], ...ids.slice(2), newcomer];
  assert.equal(live.length, MCP_HTTP_MAX_SESSIONS);
  const marker = `rt-busy-${process.pid}`;
  const busy = await Promise.all(live.map((id) => post(server, bashCall(`sleep 3 # ${marker}`), id)));
  for (const b of busy) assert.equal(b.status, 200);
  const refused = await post(server, INIT);
  assert.equal(refused.status, 503);
  const body = JSON.parse((await refused.ended).text);
  assert.match(body.error.message, /Too many sessions: 64 MCP sessions are open and each has a call in progress/);
  await Promise.all(busy.map((b) => b.ended));
  // The calls are over: room is made again, and every call had been answered.
  for (const b of busy) assert.match((await b.ended).text, /"result"/);
  const later = await initialize(server);
  assert.equal(await ping(server, later), 200);
  assert.equal(await ping(server, live[0]), 404, "the least recently used idle session made room");
});

test("a cancelled request's response stream is closed at once and its command stopped; the session is then idle and swept", async () => {
  const server = await startHttp(tempTree({ "a.txt": "a\n" }), [], { RT_MCP_SESSION_IDLE_MS: "1000" });
  servers.push(server);
  const session = await initialize(server);
  const marker = `rt-cancel-${process.pid}-${Date.now()}`;
  const started = Date.now();
  const call = await post(server, bashCall(`sleep 30; echo ${marker}`, 7), session);
  assert.equal(call.status, 200);
  await new Promise((r) => setTimeout(r, 500));
  const cancel = await post(
    server,
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 7, reason: "user pressed stop" },
    }),
    session,
  );
  assert.equal(cancel.status, 202);
  const timeout = new Promise<{ text: string; at: number }>((r) =>
    setTimeout(() => r({ text: "(still open)", at: Infinity }), 10_000).unref(),
  );
  const { text, at } = await Promise.race([call.ended, timeout]);
  assert.ok(at - started < 10_000, "the cancelled request's stream is still open after 10 s");
  assert.doesNotMatch(text, /"result"/, "no answer for a cancelled request");
  // The sleep was killed with its process group.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(processesMatching("sleep 30; echo " + marker), 0);
  // Idle now: swept after RT_MCP_SESSION_IDLE_MS.
  await new Promise((r) => setTimeout(r, 2000));
  assert.match(server.stderr(), new RegExp(`closed MCP session ${session}: idle`));
  assert.equal(await ping(server, session), 404);
});

test("the SDK client's cancellation (AbortSignal) ends the request's HTTP response on the server", async () => {
  const server = await startHttp(tempTree({ "a.txt": "a\n" }));
  servers.push(server);
  // The real SDK client, over a fetch that notes when each tools/call response body ends.
  const callResponses: Array<{ ended?: number }> = [];
  const fetchSpy: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const isCall = typeof init?.body === "string" && init.body.includes('"tools/call"');
    if (!isCall || !res.body) return res;
    const record: { ended?: number } = {};
    callResponses.push(record);
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            record.ended = Date.now();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          record.ended = Date.now();
          controller.error(e);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const { client } = makeClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: fetchSpy,
      requestInit: { headers: { Authorization: `Bearer ${server.token}` } },
    }),
  );
  try {
    const ac = new AbortController();
    const pending = client.callTool({ name: "bash", arguments: { command: "sleep 30" } }, undefined, {
      signal: ac.signal,
    });
    await new Promise((r) => setTimeout(r, 700));
    const aborted = Date.now();
    ac.abort("stop");
    await assert.rejects(pending);
    for (let i = 0; i < 100 && callResponses[0]?.ended === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(callResponses.length, 1);
    assert.ok(
      callResponses[0].ended !== undefined && callResponses[0].ended - aborted < 5_000,
      "the server closed the cancelled request's stream",
    );
  } finally {
    await client.close();
  }
});

function processesMatching(text: string): number {
  try {
    return execFileSync("pgrep", ["-f", text], { encoding: "utf8" }).trim().split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}
