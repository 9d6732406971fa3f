// rt as the client of the user's MCP servers, against real servers from npm
// (@modelcontextprotocol/server-everything: tools with image results,
// resources, prompts; over stdio, Streamable HTTP and the legacy SSE
// transport) and small servers the tests write: one that never answers, one
// that dies.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import net from "node:net";
import { createRequire } from "node:module";
import { spawn, type ChildProcess } from "node:child_process";
import { tempTree, rt } from "../helpers.ts";
import { reply } from "../llm-server.ts";
import { scriptedOllama } from "../agent/harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { startMcpClients } from "../../src/mcpClient/session.ts";

const ollama = scriptedOllama({
  models: [{ name: "test-model", contextLength: 32768, capabilities: ["completion", "tools", "vision"] }],
});
const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const SDK_SERVER = pathToFileHref(require.resolve("@modelcontextprotocol/sdk/server/mcp.js"));
const SDK_STDIO = pathToFileHref(require.resolve("@modelcontextprotocol/sdk/server/stdio.js"));

function pathToFileHref(p: string): string {
  return new URL(`file://${p}`).href;
}

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill("SIGKILL");
});

/** A user config dir whose mcp.json names these servers. */
function userConfig(servers: Record<string, unknown>): string {
  const home = tempTree({}, "rt-config-");
  fs.mkdirSync(path.join(home, "rt"), { recursive: true });
  fs.writeFileSync(path.join(home, "rt", "mcp.json"), JSON.stringify({ mcpServers: servers }));
  return home;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** server-everything over a network transport on a free port; resolves once it listens. */
async function everythingOver(transport: "sse" | "streamableHttp"): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d) => {
      err += d;
      if (/running on port|listening on port/i.test(err)) resolve();
    });
    child.once("exit", () => reject(new Error(`server-everything ${transport} exited: ${err}`)));
  });
  return port;
}

test("server-everything over stdio: resources listed and read by mcp_resources, an image result reaches a vision model as an image, a prompt as /mcp__SERVER__PROMPT", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const config = userConfig({ everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } });
  const env = { ...ollama.env(), XDG_CONFIG_HOME: config };
  ollama.server.script(
    reply.toolCall("mcp_resources", {}),
    reply.toolCall("mcp_resources", { uri: "demo://resource/static/document/architecture.md" }),
    reply.toolCall("mcp__everything__get-tiny-image", {}),
    reply.text("seen"),
  );
  const r = await rt(["run", "--model", "ollama/test-model", "--approval", "auto", "look at the server"], {
    cwd: root,
    env,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /unknown format/, "no schema-format warnings on stderr");
  const msgs = ollama.server.completions.map((c) => c.body.messages);
  const toolText = (i: number) =>
    msgs[i]
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content)
      .join("\n");
  assert.match(toolText(1), /everything demo:\/\/resource\/static\/document\/architecture\.md/);
  assert.ok(toolText(2).length > 100, "the resource's text was read");
  // The image went to the model as an image (Ollama: base64 in `images`), not only as "[image ...]".
  const imageMessage = msgs[3].find((m: { images?: string[] }) => Array.isArray(m.images) && m.images.length > 0);
  assert.ok(imageMessage, JSON.stringify(msgs[3]).slice(0, 2000));
  assert.match(imageMessage.images[0], /^iVBOR/, "a PNG");

  ollama.server.reset();
  ollama.server.script(reply.text("ok"));
  const p = await rt(["run", "--model", "ollama/test-model", "/mcp__everything__args-prompt Paris France"], {
    cwd: root,
    env,
  });
  assert.equal(p.code, 0, p.stderr);
  const first = ollama.server.completions[0].body.messages.find((m: { role: string }) => m.role === "user").content;
  assert.match(first, /Paris/);
  assert.match(first, /France/);
  const none = await rt(["run", "--model", "ollama/test-model", "/mcp__everything__no-such-prompt"], {
    cwd: root,
    env,
  });
  assert.equal(none.code, 2);
  assert.match(
    none.stderr,
    /no MCP prompt \/mcp__everything__no-such-prompt; MCP prompts: .*\/mcp__everything__simple-prompt/,
  );
});

test("the legacy SSE transport and ${VAR} in a url: both connect", async () => {
  const ssePort = await everythingOver("sse");
  const httpPort = await everythingOver("streamableHttp");
  const root = tempTree({ "a.txt": "a\n" });
  const config = userConfig({
    old: { type: "sse", url: `http://127.0.0.1:${ssePort}/sse` },
    modern: { type: "http", url: "${EVERYTHING_BASE}/mcp" },
  });
  const r = await rt(["mcp", "list", "--json"], {
    cwd: root,
    env: { XDG_CONFIG_HOME: config, EVERYTHING_BASE: `http://127.0.0.1:${httpPort}` },
  });
  assert.equal(r.code, 0, r.stderr);
  const listed = JSON.parse(r.stdout) as {
    servers: Array<{ name: string; state: string; tools: unknown[]; error?: string }>;
  };
  for (const name of ["old", "modern"]) {
    const s = listed.servers.find((x) => x.name === name)!;
    assert.equal(s.state, "connected", JSON.stringify(s));
    assert.ok(s.tools.length > 5);
  }
});

test("a server that never answers initialize: rt gives up at the start timeout and exits, not a minute later", async () => {
  // The server's own startup_timeout_sec (1.5 s here; 15 s by default) bounds the start; a bad one is a
  // problem of the configuration naming the field, and that server is not started.
  const root = tempTree({ "a.txt": "a\n" });
  const config = userConfig({
    mute: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], startup_timeout_sec: 1.5 },
    badtimeout: { command: process.execPath, args: ["-e", "0"], startup_timeout_sec: "soon" },
  });
  const started = Date.now();
  const r = await rt(["mcp", "list", "--json"], { cwd: root, env: { XDG_CONFIG_HOME: config } });
  const took = Date.now() - started;
  assert.equal(r.code, 1, "a server that failed to start makes the listing exit 1");
  const out = JSON.parse(r.stdout) as {
    servers: Array<{ name: string; state: string; error?: string }>;
    problems: Array<{ server?: string; message: string }>;
  };
  assert.deepEqual(
    out.servers.map((s) => s.name),
    ["mute"],
  );
  const s = out.servers[0];
  assert.equal(s.state, "failed");
  assert.match(s.error ?? "", /connecting to MCP server mute took longer than 1\.5 s/);
  assert.ok(took < 30_000, `rt ended ${took} ms after it started`);
  assert.equal(out.problems.length, 1, JSON.stringify(out.problems));
  assert.equal(out.problems[0].server, "badtimeout");
  assert.match(out.problems[0].message, /^startup_timeout_sec: .*number/);
});

test("a server that dies is started again once, on the next call, and the result says so", async () => {
  const dir = tempTree({
    "server.mjs": [
      `import { McpServer } from ${JSON.stringify(SDK_SERVER)};`,
      `import { StdioServerTransport } from ${JSON.stringify(SDK_STDIO)};`,
      `const s = new McpServer({ name: "fragile", version: "1" });`,
      `s.registerTool("echo", { description: "echo", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "pid " + process.pid }] }));`,
      `s.registerTool("die", { description: "exit", inputSchema: {} }, async () => { setTimeout(() => process.exit(1), 10); return { content: [{ type: "text", text: "bye" }] }; });`,
      `await s.connect(new StdioServerTransport());`,
    ].join("\n"),
  });
  const config = userConfig({ fragile: { command: process.execPath, args: [path.join(dir, "server.mjs")] } });
  const ws = createWorkspace({ root: dir, env: { ...process.env, XDG_CONFIG_HOME: config } });
  const session = await startMcpClients(ws);
  try {
    const conn = session.connections[0];
    assert.equal(conn.status.state, "connected", conn.status.error);
    const first = await conn.call(ws, "echo", {});
    assert.match(first.output, /^pid \d+$/);
    await conn.call(ws, "die", {});
    for (let i = 0; i < 100 && conn.status.state === "connected"; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(conn.status.state, "failed");
    const again = await conn.call(ws, "echo", {});
    assert.equal(again.success, true, again.error);
    assert.match(again.output, /MCP server fragile had stopped .*rt restarted it for this call\npid \d+/);
    assert.notEqual(again.output.split("pid ")[1], first.output.split("pid ")[1], "a new process");
    // Once only: a second death is reported, not restarted again.
    await conn.call(ws, "die", {});
    for (let i = 0; i < 100 && conn.status.state === "connected"; i++) await new Promise((r) => setTimeout(r, 20));
    const third = await conn.call(ws, "echo", {});
    assert.equal(third.success, false);
    assert.match(third.error ?? "", /not connected: the server stopped/);
  } finally {
    await session.close();
  }
});
