// `rt mcp --http` requires a bearer token, even on loopback (issue 9: another
// local user connected and ran bash as the user who started the server).
// The real built CLI, driven by the MCP SDK's own client and by raw HTTP.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { tempTree } from "../helpers.js";
import { call, connectHttp, startHttp, type HttpServer } from "./helpers.js";
import { authorizationMatches, writeTokenFile } from "../../src/faces/mcp/auth.ts";

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

function request(
  url: string,
  method: string,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const root = tempTree({ "a.txt": "alpha\n" });
const servers: HttpServer[] = [];
after(async () => {
  for (const s of servers) await s.stop();
});
async function start(args: string[] = [], env: Record<string, string> = {}): Promise<HttpServer> {
  const s = await startHttp(root, args, env);
  servers.push(s);
  return s;
}

test("without the token, or with a wrong one, every request gets 401; with it, the SDK client works", async () => {
  const server = await start();
  assert.match(server.token ?? "", /^[A-Za-z0-9_-]{43}$/, "a 256-bit random token, printed on stderr");
  for (const [what, headers] of [
    ["no Authorization header", {}],
    ["a wrong token", { authorization: "Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }],
    ["a prefix of the token", { authorization: `Bearer ${server.token!.slice(0, 20)}` }],
    ["the token with something after it", { authorization: `Bearer ${server.token}x` }],
    ["another scheme", { authorization: `Basic ${server.token}` }],
    ["the token without a scheme", { authorization: server.token! }],
  ] as Array<[string, Record<string, string>]>) {
    for (const method of ["POST", "GET", "DELETE"]) {
      const r = await request(server.url, method, method === "POST" ? INIT : undefined, headers);
      assert.equal(r.status, 401, `${method} with ${what}`);
      assert.match(String(r.headers["www-authenticate"]), /^Bearer /);
      assert.match(JSON.parse(r.text).error.message, /Unauthorized/);
    }
  }
  // The SDK client without the token cannot even initialize.
  await assert.rejects(connectHttp(server.url), /401|Unauthorized/);
  // With it: tools, calls.
  const { client } = await connectHttp(server.url, { token: server.token });
  try {
    assert.ok((await client.listTools()).tools.length > 10);
    assert.match((await call(client, "read", { path: "a.txt" })).text, /alpha/);
  } finally {
    await client.close();
  }
  const ok = await request(server.url, "POST", INIT, server.auth);
  assert.equal(ok.status, 200);
  assert.equal(/bearer token: \S+/.exec(server.stderr())?.[0], `bearer token: ${server.token}`);
});

test("the token is new at each start, in a 0600 file outside the workspace that is removed when the server stops", async () => {
  const runtime = tempTree({}, "rt-runtime-");
  const a = await start([], { XDG_RUNTIME_DIR: runtime });
  const b = await start([], { XDG_RUNTIME_DIR: runtime });
  assert.notEqual(a.token, b.token);
  for (const s of [a, b]) {
    assert.ok(s.tokenFile, s.stderr());
    assert.equal(path.dirname(s.tokenFile!), path.join(runtime, "rt"));
    assert.equal(fs.statSync(s.tokenFile!).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(s.tokenFile!, "utf8"), `${s.token}\n`);
  }
  assert.equal(fs.statSync(path.join(runtime, "rt")).mode & 0o077, 0, "the directory is private");
  // Each server accepts only its own token.
  assert.equal((await request(a.url, "POST", INIT, b.auth)).status, 401);
  await a.stop();
  assert.equal(fs.existsSync(a.tokenFile!), false, "the file is removed on SIGTERM");
  assert.ok(fs.existsSync(b.tokenFile!));
});

test("a runtime directory inside the workspace is not used: the token goes to the configuration directory", () => {
  const ws = tempTree({}, "rt-ws-");
  const config = tempTree({}, "rt-config-");
  const env = { XDG_RUNTIME_DIR: path.join(ws, "run"), XDG_CONFIG_HOME: config, HOME: ws };
  const f = writeTokenFile("tok", 1234, ws, env);
  assert.equal(f.path, path.join(config, "rt", "mcp-http-1234.token"));
  assert.equal(fs.existsSync(path.join(ws, "run")), false);
  // Nowhere outside the workspace: no file, and the reason says why.
  const none = writeTokenFile("tok", 1234, ws, { XDG_RUNTIME_DIR: path.join(ws, "run"), HOME: ws });
  assert.equal(none.path, undefined);
  assert.match(none.reason ?? "", /inside the workspace/);
  // A directory others can write in is not used either.
  const shared = tempTree({}, "rt-shared-");
  fs.mkdirSync(path.join(shared, "rt"), { mode: 0o777 });
  fs.chmodSync(path.join(shared, "rt"), 0o777);
  const g = writeTokenFile("tok", 1234, ws, { XDG_RUNTIME_DIR: shared, XDG_CONFIG_HOME: config });
  assert.equal(g.path, path.join(config, "rt", "mcp-http-1234.token"));
});

test("authorizationMatches: only `Bearer <token>` exactly (scheme case-insensitive)", () => {
  const t = "s3cret-Token_1";
  assert.equal(authorizationMatches(`Bearer ${t}`, t), true);
  assert.equal(authorizationMatches(`bearer ${t}`, t), true);
  assert.equal(authorizationMatches(`Bearer  ${t} `, t), true);
  for (const bad of [
    undefined,
    "",
    "Bearer",
    "Bearer ",
    `Bearer ${t}x`,
    `Bearer ${t.slice(1)}`,
    `Bearer ${t} extra`,
    `Token ${t}`,
    t,
    `Bearer ${t.toUpperCase()}`,
  ]) {
    assert.equal(authorizationMatches(bad, t), false, String(bad));
  }
  assert.equal(authorizationMatches([`Bearer ${t}`, `Bearer ${t}`], t), false, "a repeated header");
  assert.equal(authorizationMatches("Bearer ", ""), false, "an empty token never matches");
});

test("--no-auth serves without a token and warns on stderr; the Host and Origin checks still apply", async () => {
  const open = await start(["--no-auth"]);
  assert.equal(open.token, undefined);
  assert.match(
    open.stderr(),
    /WARNING: --no-auth: no token is required, so any user or program on this machine that can connect to http:\/\/127\.0\.0\.1:\d+\/mcp can run rt's tools, bash included, as you/,
  );
  assert.equal((await request(open.url, "POST", INIT)).status, 200);
  const { client } = await connectHttp(open.url);
  try {
    assert.match((await call(client, "read", { path: "a.txt" })).text, /alpha/);
  } finally {
    await client.close();
  }
  assert.equal((await request(open.url, "POST", INIT, { host: "evil.example" })).status, 403);
  assert.equal((await request(open.url, "POST", INIT, { origin: "http://evil.example" })).status, 403);
  // With authentication on, the token does not lift them either.
  const guarded = await start();
  assert.equal(
    (await request(guarded.url, "POST", INIT, { ...guarded.auth, origin: "http://evil.example" })).status,
    403,
  );
});
