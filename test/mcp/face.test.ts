// The MCP face on a real repository, with the SDK's own client over stdio and
// Streamable HTTP: nothing uncut on the wire (a committed 12 MB one-line source
// map included), a lean tools/list, structured results checked by the client
// against their output schemas, progress notifications, and the protocol's
// details (cursors, requests before initialize, batches, error texts).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn, execFileSync } from "node:child_process";
import { CallToolResultSchema, McpError, type Progress } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CLI, tempTree } from "../helpers.js";
import { call, connectHttp, connectStdio, rtEnv, startHttp, type StdioSession } from "./helpers.js";

const MAP_BYTES = 12 * 1024 * 1024;

/** A repository with a committed source map: one 12 MB line that matches common searches. */
function repoWithSourceMap(): string {
  const chunk = '"function handleRequest(req){return needle(req.body)}",';
  const line = `{"version":3,"sources":["src/app.ts"],"sourcesContent":[${chunk.repeat(Math.ceil(MAP_BYTES / chunk.length))}""],"mappings":"AAAA"}`;
  return tempTree({
    "dist/app.js.map": `${line}\n`,
    "dist/app.js": "function handleRequest(req){return needle(req.body)}\n",
    "src/app.ts": "export function handleRequest(req: Req) {\n  return needle(req.body);\n}\n",
    "README.md": "# app\nCall handleRequest with a needle.\n",
  });
}

let root: string;
let s: StdioSession;

before(async () => {
  root = repoWithSourceMap();
  s = await connectStdio(root);
});
after(async () => {
  await s.close();
});

/** The size of a result as the client received it (JSON), which bounds what went over the wire. */
const size = (x: unknown) => JSON.stringify(x).length;

async function sourceMapChecks(client: Client): Promise<void> {
  const g = await call(client, "grep", { pattern: "needle" });
  assert.equal(g.isError, false, g.text);
  assert.ok(size(g.result) < 64 * 1024, `grep result is ${size(g.result)} bytes`);
  assert.match(g.text, /dist\/app\.js\.map:1: \{"version":3.*… \[line cut: longer than 2000 bytes\]/);
  const sc = g.result.structuredContent as { matches: Array<{ file: string; text: string }>; count: number };
  assert.equal(sc.count, 4);
  assert.ok(
    sc.matches.every((m) => m.text.length <= 600),
    "each structured line is cut",
  );
  const meta = g.result._meta!["rt/result"] as Record<string, unknown>;
  assert.ok(size(meta) <= 8 * 1024 && !("matches" in meta), "the metadata does not repeat the matches");
  // The connection is still there, and the big file can be read in windows.
  const r = await call(client, "read", { path: "dist/app.js.map" });
  assert.equal(r.isError, false);
  assert.ok(size(r.result) < 64 * 1024, `read result is ${size(r.result)} bytes`);
  const o = await call(client, "open", { path: "dist/app.js.map:1" });
  assert.ok(size(o.result) < 64 * 1024);
  const b = await call(client, "bash", { command: `head -c ${MAP_BYTES} dist/app.js.map` });
  assert.ok(size(b.result) < 160 * 1024, `bash result is ${size(b.result)} bytes`);
  const cut = (b.result._meta!["rt/result"] as { cut?: string[] }).cut ?? [];
  assert.ok(
    cut.some((c) => c.startsWith("stdout")),
    "the metadata says its copy of stdout was cut",
  );
  assert.equal((await call(client, "grep", { pattern: "handleRequest", path: "src" })).isError, false, "still serving");
}

test("stdio: a grep matching a 12 MB one-line source map sends a small result, and the client stays connected", async () => {
  await sourceMapChecks(s.client);
});

test("HTTP: the same repository, the same caps", async () => {
  const server = await startHttp(root);
  try {
    const { client } = await connectHttp(server.url, { token: server.token });
    try {
      await sourceMapChecks(client);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
});

test("tools/list is lean: no aliases, no SQL tools without a database, at most 18 KB; SQL tools once a connection exists", async () => {
  const { tools } = await s.client.listTools();
  const names = tools.map((t) => t.name);
  const bytes = JSON.stringify({ tools }).length;
  assert.ok(bytes <= 18_000, `tools/list is ${bytes} bytes`);
  for (const n of ["open_file_chunk", "search_dir", "sql_query", "sql_tables", "edit_range", "grep_file", "scroll"])
    assert.ok(!names.includes(n), n);
  for (const n of ["read", "open", "grep", "edit_lines", "edit", "bash"]) assert.ok(names.includes(n), n);
  // Calls by unlisted names still work.
  assert.equal((await call(s.client, "search_dir", { pattern: "needle", root: "src" })).isError, false);
  assert.equal((await call(s.client, "open_file_chunk", { path: "README.md" })).isError, false);

  const dbRoot = tempTree({ "a.txt": "x\n" });
  execFileSync("python3", [
    "-c",
    "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table t(id integer primary key, name text)'); c.executemany('insert into t(name) values (?)', [('a'*5000,),('b',)]); c.commit()",
    path.join(dbRoot, "app.db"),
  ]);
  const withDb = await connectStdio(dbRoot, [], { env: { SQLITE_DB: path.join(dbRoot, "app.db") } });
  try {
    const listed = (await withDb.client.listTools()).tools;
    for (const n of ["sql_query", "sql_tables", "sql_describe"])
      assert.ok(
        listed.some((t) => t.name === n),
        n,
      );
    // Structured rows, checked by the SDK client against sql_query's outputSchema.
    const q = await call(withDb.client, "sql_query", { sql: "SELECT id, name FROM t ORDER BY id" });
    assert.equal(q.isError, false, q.text);
    const sc = q.result.structuredContent as { columns: string[]; rows: unknown[][]; more: boolean };
    assert.deepEqual(sc.columns, ["id", "name"]);
    assert.equal(sc.rows.length, 2);
    assert.equal(sc.rows[1][1], "b");
    assert.ok(String(sc.rows[0][1]).length < 5000, "a long cell is cut in the structured result");
  } finally {
    await withDb.close();
  }
});

test("structured results: grep's matches and read's line IDs, with output schemas the client checks", async () => {
  const { tools } = await s.client.listTools(); // the client keeps the output schemas and validates against them
  for (const n of ["grep", "read"]) assert.equal(tools.find((t) => t.name === n)?.outputSchema?.type, "object", n);
  const g = await call(s.client, "grep", { pattern: "needle", path: "src", ids: true });
  const gsc = g.result.structuredContent as {
    matches: Array<{ file: string; line: number; text: string; line_id: string }>;
    count: number;
    truncated: boolean;
  };
  assert.deepEqual(
    gsc.matches.map((m) => [m.file, m.line, m.text]),
    [["src/app.ts", 2, "  return needle(req.body);"]],
  );
  assert.match(gsc.matches[0].line_id, /^[a-z][0-9a-z]{3,5}$/);
  assert.deepEqual([gsc.count, gsc.truncated], [1, false]);
  const r = await call(s.client, "read", { path: "src/app.ts", ids: true, offset: 2 });
  const rsc = r.result.structuredContent as {
    path: string;
    start_line: number;
    end_line: number;
    total_lines: number;
    line_ids: string[];
  };
  assert.deepEqual([rsc.path, rsc.start_line, rsc.end_line, rsc.total_lines], ["src/app.ts", 2, 3, 3]);
  assert.equal(rsc.line_ids.length, 2);
  assert.equal(rsc.line_ids[0], gsc.matches[0].line_id, "the same line, the same ID");
  assert.ok(r.text.includes(`[LID:${rsc.line_ids[0]}]`));
  const l = await call(s.client, "grep", { pattern: "needle", output_mode: "files_with_matches" });
  assert.deepEqual((l.result.structuredContent as { files: string[] }).files, [
    "README.md",
    "dist/app.js",
    "dist/app.js.map",
    "src/app.ts",
  ]);
  // A failed call has no structured content (and the client does not require any).
  const bad = await call(s.client, "read", { path: "nope.txt" });
  assert.deepEqual([bad.isError, bad.result.structuredContent], [true, undefined]);
});

test("progress notifications for bash output and a long grep, when the client sends a progress token", async () => {
  const seen: Progress[] = [];
  const r = await s.client.callTool(
    { name: "bash", arguments: { command: "for i in 1 2 3 4; do echo step $i; sleep 0.4; done" } },
    CallToolResultSchema,
    { onprogress: (p) => void seen.push(p) },
  );
  assert.equal(r.isError, false);
  assert.ok(seen.length >= 2, `got ${seen.length} progress notifications`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, "progress grows");
  assert.ok(
    seen.some((p) => /last line: step \d/.test(p.message ?? "")),
    JSON.stringify(seen),
  );

  const fifo = path.join(root, "slow.fifo");
  execFileSync("mkfifo", [fifo]);
  const writer = spawn("sh", ["-c", 'sleep 1.2; echo "needle late" > "$0"', fifo], { stdio: "ignore" });
  const grepSeen: Progress[] = [];
  try {
    const g = await s.client.callTool(
      { name: "grep", arguments: { pattern: "needle", path: "slow.fifo" } },
      CallToolResultSchema,
      { onprogress: (p) => void grepSeen.push(p) },
    );
    assert.equal(g.isError, false);
    assert.ok(
      grepSeen.length >= 2 && grepSeen.every((p) => /^searching: /.test(p.message ?? "")),
      JSON.stringify(grepSeen),
    );
  } finally {
    writer.kill();
    fs.rmSync(fifo, { force: true });
  }
  // Without a token, no notifications are sent (the call works the same).
  assert.equal((await call(s.client, "bash", { command: "echo quiet" })).isError, false);
});

test("errors: an invalid tools/list cursor is -32602; error texts carry the code's prefix once", async () => {
  await assert.rejects(
    s.client.listTools({ cursor: "page-2" }),
    (e: unknown) =>
      e instanceof McpError &&
      e.code === -32602 &&
      e.message ===
        'MCP error -32602: invalid cursor "page-2": tools/list returns every tool in one page (no nextCursor); call it without a cursor',
  );
  await assert.rejects(
    s.client.callTool({ name: "no_such_tool", arguments: {} }),
    (e: unknown) =>
      e instanceof McpError &&
      /^MCP error -32602: unknown tool "no_such_tool"; available tools: /.test(e.message) &&
      !/MCP error.*MCP error/.test(e.message),
  );
  await assert.rejects(
    s.client.request({ method: "tools/call", params: { name: 5 } } as never, CallToolResultSchema),
    (e: unknown) => e instanceof McpError && e.code === -32602 && !/MCP error.*MCP error/.test(e.message),
  );
});

/** Raw JSON-RPC lines to a fresh `rt mcp` over stdio; its answers, one per line (arrays for batches). */
async function rawStdio(lines: unknown[], expected: number): Promise<unknown[]> {
  const child = spawn(process.execPath, [CLI, "--root", root, "mcp"], {
    cwd: root,
    env: rtEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out: unknown[] = [];
  let buf = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(out)}`)), 15_000);
    child.stdout.on("data", (c: Buffer) => {
      buf += c.toString();
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        out.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
      if (out.length >= expected) {
        clearTimeout(timer);
        resolve();
      }
    });
    for (const l of lines) child.stdin.write(`${typeof l === "string" ? l : JSON.stringify(l)}\n`);
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return out;
}

const init = (version: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

test("stdio: requests before initialize are refused as over HTTP (ping excepted); then initialize works", async () => {
  const out = (await rawStdio(
    [
      { jsonrpc: "2.0", id: 10, method: "tools/list" },
      { jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "read", arguments: { path: "README.md" } } },
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { jsonrpc: "2.0", id: 12, method: "ping" },
      init("2025-06-18"),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 13, method: "tools/list" },
    ],
    5,
  )) as Array<Record<string, any>>;
  const byId = new Map(out.map((m) => [m.id, m]));
  for (const id of [10, 11])
    assert.deepEqual(
      byId.get(id)?.error,
      { code: -32000, message: "Bad Request: Server not initialized: send initialize first" },
      `id ${id}`,
    );
  assert.deepEqual(byId.get(12)?.result, {});
  assert.equal(byId.get(1)?.result?.protocolVersion, "2025-06-18");
  assert.ok(Array.isArray(byId.get(13)?.result?.tools));
  assert.equal(out.length, 5, "the notification got no answer");
});

test("stdio: a JSON-RPC batch is answered as a batch on 2025-03-26 and refused on 2025-06-18 and later", async () => {
  const batch = [
    { jsonrpc: "2.0", id: 20, method: "ping" },
    {
      jsonrpc: "2.0",
      id: 21,
      method: "tools/call",
      params: { name: "grep-file", arguments: { pattern: "needle", path: "src/app.ts" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 22, method: "initialize", params: {} },
  ];
  const old = (await rawStdio([init("2025-03-26"), batch], 2)) as unknown[];
  const answer = old.find(Array.isArray) as Array<Record<string, any>>;
  assert.ok(answer, JSON.stringify(old));
  assert.deepEqual(answer.map((m) => m.id).sort(), [20, 21, 22]);
  assert.deepEqual(answer.find((m) => m.id === 20)?.result, {});
  assert.match(answer.find((m) => m.id === 21)?.result?.content?.[0]?.text, /^2:   return needle/);
  assert.match(answer.find((m) => m.id === 22)?.error?.message, /initialize must not be part of a JSON-RPC batch/);
  for (const version of ["2025-06-18", "2025-11-25"]) {
    const out = (await rawStdio([init(version), batch], 2)) as Array<Record<string, any>>;
    const refused = out.find((m) => m.id === null);
    assert.equal(refused?.error?.code, -32600, JSON.stringify(out));
    assert.match(
      refused?.error?.message,
      new RegExp(`batches were removed from MCP in 2025-06-18, and this session uses ${version}`),
    );
  }
});

test("HTTP: a batch is refused on versions without batches, accepted on 2025-03-26", async () => {
  const server = await startHttp(root);
  try {
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...server.auth,
          ...headers,
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const opened = await post(init(version));
      assert.equal(opened.status, 200, opened.text);
      const session = opened.headers.get("mcp-session-id")!;
      const h = { "mcp-session-id": session, "mcp-protocol-version": version };
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, h);
      const r = await post(
        [
          { jsonrpc: "2.0", id: 2, method: "ping" },
          { jsonrpc: "2.0", id: 3, method: "ping" },
        ],
        h,
      );
      if (version === "2025-06-18") {
        assert.equal(r.status, 400);
        const err = JSON.parse(r.text).error;
        assert.equal(err.code, -32600);
        assert.match(err.message, /batches were removed from MCP in 2025-06-18, and this session uses 2025-06-18/);
        // The session still works for single messages.
        const one = await post({ jsonrpc: "2.0", id: 4, method: "ping" }, h);
        assert.equal(one.status, 200);
        assert.match(one.text, /"id":4/);
      } else {
        assert.equal(r.status, 200, r.text);
        assert.match(r.text, /"id":2/);
        assert.match(r.text, /"id":3/);
      }
    }
  } finally {
    await server.stop();
  }
});
