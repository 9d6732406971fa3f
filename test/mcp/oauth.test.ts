// OAuth for remote MCP servers, against the MCP SDK's own example server run
// with `--oauth --oauth-strict` (a separate authorization server with dynamic
// client registration and PKCE, a resource server that accepts only tokens
// issued for itself): rt mcp login runs the browser flow (the test plays the
// browser), the tokens are kept 0600 in the user's config directory, a call
// then works, another server never receives them, logout forgets them.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { CLI, REPO, rt, tempTree } from "../helpers.ts";

const EXAMPLE = path.join(
  REPO,
  "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
);

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** The SDK's example server with OAuth; resolves once both of its servers listen. */
async function startExample(): Promise<{ child: ChildProcess; mcpUrl: string }> {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [EXAMPLE, "--oauth", "--oauth-strict"], {
    env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example server did not start: ${out}`)), 20_000);
    const check = (c: Buffer) => {
      out += c;
      if (/Authorization Server listening/.test(out) && /Streamable HTTP Server listening/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", () => reject(new Error(`example server exited: ${out}`)));
  });
  return { child, mcpUrl: `http://localhost:${mcpPort}/mcp` };
}

/** Runs `rt mcp login NAME`, answering its authorization address as a browser would (after a forged redirect). */
async function login(
  cwd: string,
  env: Record<string, string>,
  name: string,
  authorizeLine = /^\s+(http:\/\/localhost:\d+\/authorize\S+)$/m,
) {
  const child = spawn(process.execPath, [CLI, "mcp", "login", name], { cwd, env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  const authUrl = await new Promise<URL>((resolve, reject) => {
    child.stderr.on("data", (c) => {
      stderr += c;
      const m = authorizeLine.exec(stderr);
      if (m) resolve(new URL(m[1]));
    });
    child.once("exit", () => reject(new Error(`rt mcp login exited early: ${stderr}`)));
  });
  const callback = new URL(authUrl.searchParams.get("redirect_uri")!);
  assert.equal(callback.hostname, "127.0.0.1", "the redirect comes back to a loopback address");
  assert.ok(authUrl.searchParams.get("code_challenge"), "PKCE");
  assert.ok(authUrl.searchParams.get("resource"), "the resource the token is for (RFC 8707)");
  // A redirect rt did not start (another state) is refused, and the login keeps waiting.
  const forged = await fetch(`${callback.href}?code=forged&state=not-rts`);
  assert.equal(forged.status, 400);
  // The browser: the authorization server (which consents at once) redirects back to rt.
  const consent = await fetch(authUrl, { redirect: "manual" });
  assert.equal(consent.status, 302);
  const back = await fetch(consent.headers.get("location")!);
  assert.equal(back.status, 200);
  assert.match(await back.text(), /rt is authorized/);
  const code = await new Promise<number | null>((r) => child.once("close", r));
  return { code, stdout, stderr };
}

test("rt mcp login: the OAuth browser flow against the SDK's OAuth example server; tokens 0600, used, never sent elsewhere; logout", async (t) => {
  const { child, mcpUrl } = await startExample();
  t.after(() => child.kill());
  // Another HTTP server that records the headers it receives.
  const seen: http.IncomingHttpHeaders[] = [];
  const other = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(401, { "www-authenticate": "Bearer" }).end();
  });
  await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
  t.after(() => other.close());
  const otherUrl = `http://127.0.0.1:${(other.address() as net.AddressInfo).port}/mcp`;

  const home = tempTree({}, "rt-oauth-home-");
  const config = path.join(home, ".config", "rt");
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(
    path.join(config, "mcp.json"),
    JSON.stringify({
      mcpServers: {
        demo: { type: "http", url: mcpUrl },
        other: { type: "http", url: otherUrl },
        local: { command: "true" },
      },
    }),
  );
  const cwd = tempTree({ "a.txt": "x\n" });
  const env = { HOME: home, XDG_CONFIG_HOME: "" };

  const before = await rt(["mcp", "list"], { cwd, env });
  assert.equal(before.code, 1);
  assert.match(before.stdout, /demo[\s\S]*requires authorization[\s\S]*rt mcp login demo/);

  const done = await login(cwd, env, "demo");
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stdout, /logged in to demo/);
  const store = path.join(config, "mcp-oauth.json");
  assert.equal(fs.statSync(store).mode & 0o777, 0o600);
  const saved = JSON.parse(fs.readFileSync(store, "utf8"));
  assert.deepEqual(Object.keys(saved.servers), [new URL(mcpUrl).href]);
  const token = saved.servers[new URL(mcpUrl).href].tokens.access_token as string;
  assert.ok(token);

  const call = await rt(["mcp", "call", "demo", "greet", "--args", '{"name":"rt"}'], { cwd, env });
  assert.equal(call.code, 0, call.stdout + call.stderr);
  assert.match(JSON.parse(call.stdout).output, /Hello, rt!/);

  // The token is for demo's URL only: the other server never sees it.
  await rt(["mcp", "list"], { cwd, env });
  assert.ok(seen.length > 0);
  for (const h of seen) assert.ok(!String(h.authorization ?? "").includes(token), "a token went to another server");

  const out = await rt(["mcp", "logout", "demo"], { cwd, env });
  assert.equal(out.code, 0);
  assert.match(out.stdout, /logged out of demo/);
  assert.deepEqual(JSON.parse(fs.readFileSync(store, "utf8")).servers, {});
  const after = await rt(["mcp", "call", "demo", "greet", "--args", '{"name":"rt"}'], { cwd, env });
  assert.equal(after.code, 1);
  assert.match(after.stdout, /rt mcp login demo/);

  // Bad input: a clear error, exit 2, nothing written.
  const bytes = fs.readFileSync(store);
  const unknown = await rt(["mcp", "login", "nosuch"], { cwd, env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no MCP server named nosuch; configured: demo, other, local/);
  const local = await rt(["mcp", "login", "local"], { cwd, env });
  assert.equal(local.code, 2);
  assert.match(local.stderr, /local \(stdio\) server/);
  const none = await rt(["mcp", "login"], { cwd, env });
  assert.equal(none.code, 2);
  assert.deepEqual(fs.readFileSync(store), bytes);
});

/**
 * An OAuth-protected MCP server in this process, from the SDK's own parts (its
 * authorization router, bearer middleware and demo provider), whose provider
 * also issues refresh tokens. `revoke()` forgets every access token, as an
 * expiry would.
 */
async function refreshingServer() {
  // express has no type declarations here; only what this server uses is typed.
  type Handler = (req: { body?: unknown }, res: http.ServerResponse, next?: () => void) => unknown;
  type App = Handler & { use(h: unknown): void; post(path: string, ...h: unknown[]): void };
  const express = (await import("express" as string)).default as (() => App) & { json(): unknown };
  const { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } = await import(
    "@modelcontextprotocol/sdk/server/auth/router.js"
  );
  const { requireBearerAuth } = await import("@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js");
  const { DemoInMemoryClientsStore } = await import(
    "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js"
  );
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const { InvalidTokenError } = await import("@modelcontextprotocol/sdk/server/auth/errors.js");
  type Client = { client_id: string; redirect_uris: string[] };
  type Params = { redirectUri: string; state?: string; codeChallenge: string; resource?: URL };

  const refreshes: string[] = [];
  const codes = new Map<string, { client: Client; params: Params }>();
  const access = new Map<string, { clientId: string; resource?: URL }>();
  const refreshTokens = new Map<string, { clientId: string; resource?: URL }>();
  const issue = (clientId: string, resource?: URL) => {
    const token = crypto.randomUUID();
    const refresh = crypto.randomUUID();
    access.set(token, { clientId, resource });
    refreshTokens.set(refresh, { clientId, resource });
    return { access_token: token, token_type: "bearer", expires_in: 3600, refresh_token: refresh };
  };
  // The OAuth server provider interface of the SDK: consent is given at once, codes and tokens are kept in memory.
  const provider = {
    clientsStore: new DemoInMemoryClientsStore(),
    async authorize(client: Client, params: Params, res: http.ServerResponse) {
      const code = crypto.randomUUID();
      codes.set(code, { client, params });
      const target = new URL(params.redirectUri);
      target.search = new URLSearchParams({ code, ...(params.state ? { state: params.state } : {}) }).toString();
      res.writeHead(302, { location: target.href }).end();
    },
    async challengeForAuthorizationCode(_client: Client, code: string) {
      const data = codes.get(code);
      if (!data) throw new Error("Invalid authorization code");
      return data.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client: Client, code: string) {
      const data = codes.get(code);
      if (!data || data.client.client_id !== client.client_id) throw new Error("Invalid authorization code");
      codes.delete(code);
      return issue(client.client_id, data.params.resource);
    },
    async exchangeRefreshToken(client: Client, refresh: string) {
      const data = refreshTokens.get(refresh);
      if (!data || data.clientId !== client.client_id) throw new Error("Invalid refresh token");
      refreshTokens.delete(refresh);
      refreshes.push(refresh);
      return issue(client.client_id, data.resource);
    },
    async verifyAccessToken(token: string) {
      const data = access.get(token);
      if (!data) throw new InvalidTokenError("Invalid or expired token");
      return { token, clientId: data.clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    },
  };
  const app = express();
  const server = http.createServer(app as unknown as http.RequestListener);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider: provider as never, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const bearer = requireBearerAuth({
    verifier: provider as never,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.post("/mcp", express.json(), bearer, async (req: { body?: unknown }, res: http.ServerResponse) => {
    const mcp = new McpServer({ name: "refreshing", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "Who the token belongs to" }, async (extra) => ({
      content: [{ type: "text", text: `client ${extra.authInfo?.clientId}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req as never, res, req.body);
  });
  return {
    url: mcpUrl.href,
    refreshes,
    revoke: () => access.clear(),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test("a token the server no longer accepts is refreshed with the refresh token and stored again", async (t) => {
  const srv = await refreshingServer();
  t.after(() => srv.close());
  const home = tempTree({}, "rt-oauth-home-");
  const config = path.join(home, ".config", "rt");
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(path.join(config, "mcp.json"), JSON.stringify({ mcpServers: { api: { url: srv.url } } }));
  const cwd = tempTree({ "a.txt": "x\n" });
  const env = { HOME: home, XDG_CONFIG_HOME: "" };
  const store = path.join(config, "mcp-oauth.json");
  const stored = () => JSON.parse(fs.readFileSync(store, "utf8")).servers[srv.url].tokens;

  const done = await login(cwd, env, "api", /^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\S+)$/m);
  assert.equal(done.code, 0, done.stderr);
  const first = stored();
  assert.ok(first.refresh_token);
  const call = await rt(["mcp", "call", "api", "whoami"], { cwd, env });
  assert.equal(call.code, 0, call.stdout + call.stderr);
  assert.match(JSON.parse(call.stdout).output, /^client /);
  assert.equal(srv.refreshes.length, 0);

  srv.revoke();
  const again = await rt(["mcp", "call", "api", "whoami"], { cwd, env });
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.deepEqual(srv.refreshes, [first.refresh_token]);
  const second = stored();
  assert.notEqual(second.access_token, first.access_token);
  assert.notEqual(second.refresh_token, first.refresh_token);
  assert.equal(fs.statSync(store).mode & 0o777, 0o600);
});
