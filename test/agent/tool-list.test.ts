// The default tool list, measured from real requests to the scripted Anthropic server: within
// 16 KB, no SQL tools without a database, no seed-compatibility tools unless asked, the rarely
// used tools behind tool_search, and every one of them still reachable through it.
import { test, after, before, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer, type RecordedRequest } from "../llm-server.ts";
import { anthropicProvider, collect, last, ofType } from "./harness.ts";
import { tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { Agent, type AgentOptions } from "../../src/agent/loop.ts";
import { DEFERRED_TOOLS, SEED_COMPAT_TOOLS, SQL_TOOLS } from "../../src/agent/toolSet.ts";
import { allTools } from "../../src/tools/registry.ts";

/** The target: the tool definitions of a default request, as sent, at most this many bytes. */
const TOOL_BYTES_MAX = 16_384;

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(() => server.close());
beforeEach(() => server.reset());

/** An agent with its own user configuration (none, or the one given). */
function agentWith(root: string, config: Record<string, unknown> | undefined, opts: Partial<AgentOptions> = {}): Agent {
  const home = tempTree(config ? { "rt/config.json": JSON.stringify(config) } : {}, "rt-config-");
  const ws = agentWorkspace(
    createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined, XDG_CONFIG_HOME: home, HOME: home } }),
  );
  return new Agent({
    workspace: ws,
    provider: anthropicProvider(server),
    model: "test-model",
    modelLabel: "anthropic/test-model",
    protocol: "tools",
    approval: "auto",
    contextWindow: 100_000,
    ...opts,
  });
}

const names = (r: RecordedRequest): string[] => (r.body.tools ?? []).map((t: { name: string }) => t.name);
/** The bytes of the tool definitions as sent (name, description, input_schema), without the cache marker. */
const toolBytes = (r: RecordedRequest): number =>
  (r.body.tools as Array<Record<string, unknown>>).reduce(
    (n, { cache_control: _c, ...t }) => n + Buffer.byteLength(JSON.stringify(t)),
    0,
  );

test("the default request's tool definitions fit in 16 KB: no SQL without a database, no seed tools, the rare ones behind tool_search", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  server.script(reply.text("ok"));
  const agent = agentWith(root, undefined);
  await collect(agent.run("hi"));
  agent.close();
  const req = server.completions[0];
  const offered = names(req);
  const bytes = toolBytes(req);
  assert.ok(
    bytes <= TOOL_BYTES_MAX,
    `tool definitions: ${bytes} bytes (${offered.length} tools: ${offered.join(", ")})`,
  );
  for (const n of [...SQL_TOOLS, ...SEED_COMPAT_TOOLS, ...DEFERRED_TOOLS])
    assert.ok(!offered.includes(n), `${n} is not offered directly`);
  for (const n of ["read", "grep", "find", "edit", "edit_lines", "write", "bash", "tool_search"])
    assert.ok(offered.includes(n), `${n} is offered`);
  // tool_search names everything it can find: every deferred tool this workspace can use, the seed tools too.
  const search = req.body.tools.find((t: { name: string }) => t.name === "tool_search");
  const usable = allTools().filter((t) => !t.unavailable?.(createWorkspace({ root })));
  for (const t of usable) {
    if (SQL_TOOLS.includes(t.name)) continue;
    assert.ok(
      offered.includes(t.name) || search.description.includes(t.name),
      `${t.name} is reachable: offered or named by tool_search`,
    );
  }
});

test("a deferred tool found by tool_search is offered from the next request on, at the end of the list, and runs", async () => {
  const root = tempTree({ "nb.ipynb": JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }) });
  server.script(
    reply.toolCall("tool_search", { query: "notebook cell" }),
    reply.toolCall("notebook_edit", {
      path: "nb.ipynb",
      edit_mode: "insert",
      cell_type: "code",
      new_source: "print(1)",
    }),
    reply.text("done"),
  );
  const agent = agentWith(root, undefined);
  const events = await collect(agent.run("add a cell"));
  agent.close();
  assert.equal(last(events).type, "turn_complete");
  const [first, second] = server.completions;
  assert.ok(!names(first).includes("notebook_edit"));
  assert.match(ofType(events, "tool_end")[0].output, /notebook_edit/);
  assert.deepEqual(
    names(second).slice(0, -1),
    names(first),
    "the list before it is unchanged (the cached prefix holds)",
  );
  assert.equal(names(second).at(-1), "notebook_edit");
  const edit = ofType(events, "tool_end")[1];
  assert.equal(edit.success, true, edit.output);
  assert.match(fs.readFileSync(path.join(root, "nb.ipynb"), "utf8"), /print\(1\)/);
});

test("with a database connection the SQL tools are offered; with seed tools asked for, those; agent.defer_tools false offers everything", async () => {
  const root = tempTree({ "app.db": "" });
  const cases: Array<[Record<string, unknown> | undefined, Partial<AgentOptions>, (offered: string[]) => void]> = [
    [
      { databases: { main: { type: "sqlite", path: path.join(root, "app.db") } } },
      {},
      (o) => SQL_TOOLS.forEach((n) => assert.ok(o.includes(n), n)),
    ],
    [undefined, { seedTools: true }, (o) => SEED_COMPAT_TOOLS.forEach((n) => assert.ok(o.includes(n), n))],
    [
      undefined,
      { deferTools: false },
      (o) => {
        assert.ok(!o.includes("tool_search"));
        for (const n of DEFERRED_TOOLS.filter((d) => !["web_search", "tool_create"].includes(d)))
          assert.ok(o.includes(n), n);
      },
    ],
  ];
  for (const [config, opts, check] of cases) {
    server.reset();
    server.script(reply.text("ok"));
    const agent = agentWith(root, config, opts);
    await collect(agent.run("hi"));
    agent.close();
    check(names(server.completions[0]));
  }
});
