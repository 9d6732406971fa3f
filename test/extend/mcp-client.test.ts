// The user's MCP servers in rt (issue 18), through the SDK's real client
// against real servers: rt's own `rt mcp` (stdio and Streamable HTTP with its
// bearer token) and the reference @modelcontextprotocol/server-filesystem
// (stdio; it has no HTTP transport). Tools offered as mcp__SERVER__TOOL,
// called, errors as data, approvals by readOnlyHint, lazy mcp_search, and
// project servers only in trusted folders.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { CLI, REPO, rt, tempTree } from "../helpers.ts";
import { startHttp, type HttpServer } from "../mcp/helpers.ts";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { makeAgent, collect, ofType, last } from "../agent/harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { startMcpClients, type McpClientSession } from "../../src/mcpClient/session.ts";
import { addAgentToolProvider } from "../../src/agent/extensionTools.ts";
import { prepareCall, runPreparedCall } from "../../src/tools/policy.ts";

const FS_SERVER = path.join(REPO, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");

let root: string;
let configHome: string;
let http: HttpServer;
let server: LlmServer;

function writeUserMcp(servers: Record<string, unknown>): void {
  fs.mkdirSync(path.join(configHome, "rt"), { recursive: true });
  fs.writeFileSync(path.join(configHome, "rt", "mcp.json"), JSON.stringify({ mcpServers: servers }));
}
const env = () => ({ XDG_CONFIG_HOME: configHome, HOME: configHome });

before(async () => {
  root = tempTree({ "notes.txt": "alpha\nbeta\n", "src/a.py": "# TODO x\n" });
  configHome = tempTree({}, "rt-config-");
  http = await startHttp(root);
  server = await startLlmServer();
});
after(async () => {
  await http.stop();
  await server.close();
});
beforeEach(() => {
  server.reset();
  writeUserMcp({
    self: { command: process.execPath, args: [CLI, "--root", root, "mcp"] },
    fs: { command: process.execPath, args: [FS_SERVER, root] },
    web: { type: "http", url: http.url, headers: { Authorization: `Bearer ${http.token}` } },
  });
});

test("rt mcp list: servers over stdio and HTTP, their state and tool counts; a broken one reported", async () => {
  writeUserMcp({
    self: { command: process.execPath, args: [CLI, "--root", root, "mcp"] },
    fs: { command: process.execPath, args: [FS_SERVER, root] },
    web: { type: "http", url: http.url, headers: { Authorization: `Bearer ${http.token}` } },
    noauth: { type: "http", url: http.url },
    missing: { command: "/nonexistent/server" },
  });
  const r = await rt(["mcp", "list", "--json"], { cwd: root, env: env() });
  assert.equal(r.code, 1, r.stderr);
  const { servers } = JSON.parse(r.stdout);
  const by = (n: string) => servers.find((s: { name: string }) => s.name === n);
  assert.equal(by("self").state, "connected");
  assert.ok(by("self").tools.includes("grep"));
  assert.equal(by("fs").state, "connected");
  assert.ok(by("fs").tools.includes("read_text_file"));
  assert.equal(by("web").state, "connected");
  assert.equal(by("web").transport, "http");
  assert.deepEqual(by("web").tools, by("self").tools);
  assert.equal(by("noauth").state, "failed");
  assert.match(by("noauth").error, /401|nauthorized|token/i);
  assert.equal(by("missing").state, "failed");
  assert.match(by("missing").error, /ENOENT/);
  // rt mcp alone is still rt's own server (the other tests of test/mcp use it); a bad subcommand is a usage error.
  const bad = await rt(["mcp", "lsit"], { cwd: root, env: env() });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown subcommand "lsit"/);
});

test("rt mcp call: a tool of each server, arguments checked against its schema, errors as data", async () => {
  const a = JSON.parse(
    (
      await rt(
        ["mcp", "call", "fs", "read_text_file", "--args", JSON.stringify({ path: path.join(root, "notes.txt") })],
        { cwd: root, env: env() },
      )
    ).stdout,
  );
  assert.equal(a.success, true);
  assert.equal(a.output, "alpha\nbeta\n");
  const badArgs = await rt(["mcp", "call", "fs", "read_text_file", "--args", '{"path": 3}'], { cwd: root, env: env() });
  assert.equal(badArgs.code, 2);
  assert.match(JSON.parse(badArgs.stdout).error, /path: must be string/);
  // The same path as rt mcp call (prepareCall, then the call), in this process: one session for these calls.
  const ws = createWorkspace({ root, env: { ...process.env, ...env() } });
  const session = await startMcpClients(ws, { only: ["fs", "web"] });
  const mcpCall = async (server: string, tool: string, args: unknown) => {
    const prepared = prepareCall(ws, `mcp__${server}__${tool}`, args, {
      find: (n) => session.tools.get(n),
      names: () => [...session.tools.keys()],
    });
    return prepared.ok ? await runPreparedCall(prepared.call) : prepared.refusal;
  };
  try {
    const denied = await mcpCall("fs", "read_text_file", { path: "/etc/hostname" });
    assert.equal(denied.success, false);
    assert.match(denied.error ?? "", /mcp__fs__read_text_file returned an error: .*(denied|outside)/i);
    const web = await mcpCall("web", "grep", { pattern: "beta" });
    assert.equal(web.success, true, web.error);
    assert.match(web.output, /notes\.txt:2: beta/);
    // A result over the cap keeps head and tail; the whole is saved under .rt/shell/.
    fs.writeFileSync(path.join(root, "big.txt"), `${"0123456789".repeat(20_000)}\nEND\n`);
    const big = await mcpCall("fs", "read_text_file", { path: path.join(root, "big.txt") });
    assert.equal(big.success, true, big.error);
    assert.equal(big.truncated, true);
    assert.ok(big.output.length < 60_000 && big.output.endsWith("END\n"), big.output.slice(-100));
    // The whole text the server returned (the file, as its read_text_file gives it back).
    assert.ok(
      fs
        .readFileSync(path.join(root, (big.saved_output as string[])[0]), "utf8")
        .startsWith(`${"0123456789".repeat(20_000)}\nEND`),
    );
    fs.rmSync(path.join(root, "big.txt"));
  } finally {
    await session.close();
  }
  const unknown = JSON.parse((await rt(["mcp", "call", "nope", "x"], { cwd: root, env: env() })).stdout);
  assert.match(unknown.error, /no MCP server named nope/);
  // A writing MCP tool is refused in safe-read-only, and nothing is written.
  const w = JSON.parse(
    (
      await rt(
        [
          "--profile",
          "safe-read-only",
          "mcp",
          "call",
          "fs",
          "write_file",
          "--args",
          JSON.stringify({ path: path.join(root, "x.txt"), content: "x" }),
        ],
        { cwd: root, env: env() },
      )
    ).stdout,
  );
  assert.equal(w.error_type, "denied");
  assert.ok(!fs.existsSync(path.join(root, "x.txt")));
});

async function clients(
  opts: Parameters<typeof startMcpClients>[1] = {},
): Promise<{ session: McpClientSession; done: () => Promise<void> }> {
  const ws = createWorkspace({ root, env: { ...process.env, ...env() } });
  const session = await startMcpClients(ws, opts);
  const remove = addAgentToolProvider(session.provider);
  return { session, done: async () => (remove(), await session.close()) };
}

test("the agent: every MCP tool offered (few tools), a read-only one runs, a writing one needs approval", async () => {
  writeUserMcp({ fs: { command: process.execPath, args: [FS_SERVER, root] } });
  const { done } = await clients({ lazy: false });
  try {
    server.script(
      reply.toolCall("mcp__fs__read_text_file", { path: path.join(root, "notes.txt") }),
      reply.toolCall("mcp__fs__write_file", { path: path.join(root, "new.txt"), content: "x" }),
      reply.text("done"),
    );
    const agent = makeAgent(root, server, { approval: "ask" });
    const events = await collect(agent.run("read notes"));
    assert.equal(last(events).type, "turn_complete");
    const offered = server.completions[0].body.tools.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(offered.includes("mcp__fs__read_text_file") && offered.includes("mcp__fs__write_file"));
    assert.ok(!offered.includes("mcp_search"));
    const ends = ofType(events, "tool_end");
    assert.equal(ends[0].success, true);
    const msgs = server.completions[2].body.messages.filter((m: { role: string }) => m.role === "tool");
    assert.match(msgs[0].content, /alpha\nbeta/);
    assert.match(msgs[1].content, /needs approval/);
    assert.ok(!fs.existsSync(path.join(root, "new.txt")));
    agent.close();
  } finally {
    await done();
  }
});

test("lazy: no MCP tool is offered, tool_search finds them (it stands in for mcp_search); the tools it finds are offered from the next request and called", async () => {
  const { session, done } = await clients({ lazyAbove: 5 });
  try {
    assert.equal(session.lazy, true);
    assert.ok(session.tools.size > 30);
    server.script(
      reply.toolCall("tool_search", { query: "read text file" }),
      reply.toolCall("mcp__fs__read_text_file", { path: path.join(root, "notes.txt") }),
      reply.text("ok"),
    );
    const agent = makeAgent(root, server);
    const events = await collect(agent.run("read notes via mcp"));
    assert.equal(last(events).type, "turn_complete");
    const offered = (i: number) =>
      server.completions[i].body.tools.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(offered(0).includes("tool_search") && !offered(0).includes("mcp_search"));
    assert.ok(!offered(0).some((n: string) => n.startsWith("mcp__")));
    const search = server.completions[0].body.tools.find(
      (t: { function: { name: string } }) => t.function.name === "tool_search",
    );
    assert.match(search.function.description, /MCP servers' tools \(mcp__SERVER__TOOL\): .*\bfs \(\d+\)/);
    assert.ok(offered(1).includes("mcp__fs__read_text_file"));
    const msgs = server.completions[2].body.messages.filter((m: { role: string }) => m.role === "tool");
    assert.match(msgs[0].content, /mcp__fs__read_text_file/);
    assert.match(msgs[0].content, /"input_schema"/);
    assert.match(msgs[1].content, /alpha/);
    // No MCP tool's schema is in the first request: tool_search stands for all of them.
    assert.doesNotMatch(JSON.stringify(server.completions[0].body.tools), /read_text_file|list_allowed_directories/);
    agent.close();
  } finally {
    await done();
  }
});

test("a project's .mcp.json starts nothing until the folder is trusted", async () => {
  const marker = path.join(tempTree({}, "rt-marker-"), "started");
  const proj = tempTree({
    ".mcp.json": JSON.stringify({ mcpServers: { evil: { command: "sh", args: ["-c", `touch ${marker}`] } } }),
  });
  writeUserMcp({});
  const r = await rt(["mcp", "list", "--json"], { cwd: proj, env: env() });
  const out = JSON.parse(r.stdout);
  assert.equal(out.servers.length, 0);
  assert.equal(out.untrusted_project_file, path.join(fs.realpathSync(proj), ".mcp.json"));
  assert.ok(!fs.existsSync(marker));
  await rt(["trust"], { cwd: proj, env: env() });
  const t = JSON.parse((await rt(["mcp", "list", "--json"], { cwd: proj, env: env() })).stdout);
  assert.equal(t.servers[0].name, "evil");
  assert.equal(t.servers[0].state, "failed");
  assert.ok(fs.existsSync(marker));
});
