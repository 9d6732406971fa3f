// `rt mcp --http`: Streamable HTTP on loopback, driven by the SDK's client;
// raw HTTP for malformed requests and the DNS-rebinding guard.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { rt, tempTree } from "../helpers.js";
import { call, connectHttp, rtEnv, startHttp, type HttpServer } from "./helpers.js";

const PY = "def f(a):\n    b = a + 1\n    return b\n";

let root: string;
let server: HttpServer;

before(async () => {
  root = tempTree({ "f.py": PY, "g.py": PY, "doc.md": "find the marker here\n" });
  server = await startHttp(root);
});
after(async () => {
  await server.stop();
});

/** A raw POST to the server, with optional headers; the status and the body (parsed when it is JSON). */
function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            json: /json/.test(res.headers["content-type"] ?? "") ? JSON.parse(data) : data,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

test("listens on 127.0.0.1 by default", () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
});

test("list tools, read, grep and edit with line IDs over HTTP", async () => {
  const { client } = await connectHttp(server.url, { token: server.token });
  try {
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((t) => t.name === "edit_lines") && !tools.some((t) => t.name === "search_dir"),
      "aliases are listed only with --seed-names",
    );
    assert.equal(tools.find((t) => t.name === "grep")!.annotations!.readOnlyHint, true);
    assert.match((await call(client, "grep", { pattern: "marker" })).text, /doc\.md:1: find the marker here/);
    const r = await call(client, "read", { path: "f.py", ids: true });
    const id = /^ {3}3: \[LID:(\w+)\] +return b$/m.exec(r.text)?.[1];
    assert.ok(id, r.text);
    assert.equal(
      (await call(client, "insert_at", { path: "f.py", line: 2, new_text: "    a = abs(a)\n" })).isError,
      false,
    );
    const ed = await call(client, "edit_lines", {
      path: "f.py",
      command: "replace",
      start_line: `3:${id}`,
      new_content: "    return b * 2",
    });
    assert.equal(ed.isError, false, ed.text);
    assert.equal(
      fs.readFileSync(path.join(root, "f.py"), "utf8"),
      "def f(a):\n    a = abs(a)\n    b = a + 1\n    return b * 2\n",
    );
  } finally {
    await client.close();
  }
});

test("over HTTP too: a syntax error is refused with the file unchanged, and a path escape is refused", async () => {
  const { client } = await connectHttp(server.url, { token: server.token });
  try {
    const before = fs.readFileSync(path.join(root, "g.py"));
    const bad = await call(client, "edit_range", {
      path: "g.py",
      start_line: 2,
      end_line: 2,
      new_text: "    b = [a +\n",
    });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /syntax error/);
    assert.deepEqual(fs.readFileSync(path.join(root, "g.py")), before);
    const esc = await call(client, "open", { path: "../../etc/passwd" });
    assert.equal(esc.isError, true);
    assert.match(esc.text, /outside the workspace root/i);
  } finally {
    await client.close();
  }
});

test("malformed HTTP requests get JSON-RPC errors; the server keeps serving", async () => {
  const parse = await post(server.url, "{not json", server.auth);
  assert.equal(parse.status, 400);
  assert.equal(parse.json.error.code, -32700);
  const noSession = await post(
    server.url,
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    server.auth,
  );
  assert.equal(noSession.status, 400, "a request outside a session");
  assert.equal(noSession.json.jsonrpc, "2.0");
  const unknown = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), {
    ...server.auth,
    "mcp-session-id": "no-such-session",
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, -32001);
  const wrongPath = await post(server.url.replace(/\/mcp$/, "/other"), INIT, server.auth);
  assert.equal(wrongPath.status, 404);
  // A body over the 10 MiB limit (rt reads POST bodies itself: the same limit and answer as the SDK's).
  const big = await post(
    server.url,
    JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { pad: "x".repeat(11 * 1024 * 1024) } }),
    server.auth,
  );
  assert.equal(big.status, 413);
  assert.match(big.json.error.message, /Payload Too Large: Request body must not exceed 10485760 bytes/);
  const wrongType = await post(server.url, INIT, { ...server.auth, "content-type": "text/plain" });
  assert.equal(wrongType.status, 415);

  const { client } = await connectHttp(server.url, { token: server.token });
  try {
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), /unknown tool "no_such_tool"/);
    const r = await call(client, "read", { path: "doc.md" });
    assert.equal(r.isError, false);
  } finally {
    await client.close();
  }
});

test("DNS rebinding guard: a non-loopback Host or Origin is refused with 403", async () => {
  const host = await post(server.url, INIT, { ...server.auth, host: "evil.example:80" });
  assert.equal(host.status, 403);
  assert.match(host.json.error.message, /Host "evil\.example:80" is not a loopback name/);
  const origin = await post(server.url, INIT, { ...server.auth, origin: "http://evil.example" });
  assert.equal(origin.status, 403);
  const ok = await post(server.url, INIT, { ...server.auth, origin: `http://localhost:${new URL(server.url).port}` });
  assert.equal(ok.status, 200);
});

test("roots over HTTP: the first root is served, the second refused", async () => {
  const first = tempTree({ "r.txt": "first\n" });
  const second = tempTree({ "r.txt": "second\n" });
  const { client } = await connectHttp(server.url, { roots: [first, second], token: server.token });
  try {
    assert.match((await call(client, "read", { path: "r.txt" })).text, /first/);
    const refused = await call(client, "read", { path: path.join(second, "r.txt") });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /does not serve/);
  } finally {
    await client.close();
  }
});

test("--host with a non-loopback address prints a warning; --port without --http is a usage error", async () => {
  const dir = tempTree({ "a.txt": "a\n" });
  const open = await startHttp(dir, ["--host", "0.0.0.0"]);
  try {
    assert.match(
      open.stderr(),
      /WARNING: listening on 0\.0\.0\.0, not on loopback: anyone who can reach this address can read and edit the files under .* if they learn the token/,
    );
    assert.match(open.url, /^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    const local = open.url.replace("0.0.0.0", "127.0.0.1");
    // Any Host is served off loopback, but a web page elsewhere still may not drive the server.
    assert.equal((await post(local, INIT, { ...open.auth, host: "build-box.lan" })).status, 200);
    const page = await post(local, INIT, { ...open.auth, host: "build-box.lan", origin: "http://evil.example" });
    assert.equal(page.status, 403);
    assert.match(page.json.error.message, /Origin "http:\/\/evil\.example" is not a loopback origin/);
  } finally {
    assert.equal(await open.stop(), 0, "SIGTERM ends the server cleanly");
  }
  const usage = await rt(["mcp", "--port", "9999"], { cwd: dir, env: rtEnv() });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--port and --host only apply with --http/);
});

test("an HTTP session idle longer than RT_MCP_SESSION_IDLE_MS is closed; the client must initialize again", async () => {
  const dir = tempTree({ "a.txt": "a\n" });
  const short = await startHttp(dir, [], { RT_MCP_SESSION_IDLE_MS: "300" });
  try {
    const init = await new Promise<{ status: number; session: string | undefined }>((resolve, reject) => {
      const req = http.request(
        short.url,
        {
          method: "POST",
          headers: { ...short.auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
        },
        (res) => {
          res.resume();
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, session: res.headers["mcp-session-id"] as string | undefined }),
          );
        },
      );
      req.on("error", reject);
      req.end(INIT);
    });
    assert.equal(init.status, 200);
    assert.ok(init.session);
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const headers = { ...short.auth, "mcp-session-id": init.session!, "mcp-protocol-version": "2025-06-18" };
    assert.equal((await post(short.url, ping, headers)).status, 200, "alive while in use");
    await new Promise((r) => setTimeout(r, 1200));
    const gone = await post(short.url, ping, headers);
    assert.equal(gone.status, 404);
    assert.match(gone.json.error.message, /Session not found/);
    assert.match(short.stderr(), /closed MCP session .*: idle for/);
  } finally {
    await short.stop();
  }
});
