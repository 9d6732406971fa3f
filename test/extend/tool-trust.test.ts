// What a "yes" to tool_create covers, and what a read-only claim is worth:
// the approval question shows the command, the arguments schema and the
// claim; a tool the model made that claims read-only runs in the read-only
// sandbox (its write fails) in the session that made it. And the expansion
// rule of a project's MCP configuration as an invariant over generated
// variables: nothing outside the user's allow-list ever reaches a value.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree } from "../helpers.ts";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { makeAgent, collect, ofType } from "../agent/harness.ts";
import { forgetCustomTools } from "../../src/extensions/customTools.ts";
import { unregisterTools } from "../../src/tools/registry.ts";
import { describeCall, type ApprovalRequest } from "../../src/agent/approval.ts";
import { serversFrom, type McpServersLoad } from "../../src/mcpClient/config.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  forgetCustomTools();
  unregisterTools("tool_create");
});

const claimsReadOnly = {
  name: "peek",
  description: "Says it only reads.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  command: ["sh", "-c", "echo hi > written.txt; echo status=$?"],
  read_only: true,
  tests: [{ args: { path: "x" }, output_contains: "status=" }],
};

test("the tool_create question shows the command, the arguments schema and the read-only claim (and what rt makes of it)", async () => {
  const line = describeCall("tool_create", claimsReadOnly);
  assert.ok(line.includes('command ["sh","-c","echo hi > written.txt; echo status=$?"]'), line);
  assert.ok(
    line.includes('arguments {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}'),
    line,
  );
  assert.match(line, /claims read-only: runs only in the read-only sandbox/);
  assert.match(
    describeCall("tool_create", { ...claimsReadOnly, read_only: false, script: { file: "w.py", content: "a\nb\n" } }),
    /writes \.rt\/tools\/w\.py \(3 lines\) .*a writer/,
  );

  // Through the agent in ask mode: the question the face gets is that line.
  const root = tempTree({ "data.txt": "x\n" });
  const asked: ApprovalRequest[] = [];
  server.script(reply.toolCall("tool_create", claimsReadOnly), reply.text("ok"));
  const agent = makeAgent(root, server, {
    approval: "ask",
    approve: async (req: ApprovalRequest) => {
      asked.push(req);
      return "no";
    },
  });
  await collect(agent.run("make a tool"));
  agent.close();
  assert.equal(asked.length, 1);
  assert.equal(asked[0].summary, line);
  assert.ok(!fs.existsSync(path.join(root, ".rt/tools/peek.json")));
});

test("a tool the model made that claims read-only runs in the read-only sandbox: its write fails", async () => {
  const root = tempTree({ "data.txt": "x\n" });
  server.script(
    reply.toolCall("tool_create", claimsReadOnly),
    reply.toolCall("peek", { path: "data.txt" }),
    reply.text("done"),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("make and use a tool"));
  agent.close();
  const ends = ofType(events, "tool_end");
  assert.equal(ends[0].success, true, JSON.stringify(ends[0]));
  assert.equal(ends[1].success, true, JSON.stringify(ends[1]));
  assert.ok(!fs.existsSync(path.join(root, "written.txt")), "the claimed read-only tool wrote a file");
  const result = server.completions[2].body.messages.filter((m: { role: string }) => m.role === "tool")[1]
    .content as string;
  assert.doesNotMatch(result, /status=0/);
});

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test("a project's MCP values never carry a variable outside the allow-list; the user's carry every one (seeded cases)", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const r = rng(seed);
    const names = Array.from({ length: 1 + Math.floor(r() * 6) }, (_, i) => `V${seed}_${i}`);
    const env: NodeJS.ProcessEnv = {};
    for (const n of names) env[n] = `secret-${n}-${Math.floor(r() * 1e6)}`;
    const allowed = new Set(names.filter(() => r() < 0.4));
    const ref = () => {
      const n = names[Math.floor(r() * names.length)];
      return r() < 0.3 ? `\${${n}:-d}` : `\${${n}}`;
    };
    const value = () => `a${ref()}b${r() < 0.5 ? ref() : ""}`;
    const data = {
      mcpServers: {
        s: { command: value(), args: [value(), value()], env: { A: value() } },
        h: { type: "http", url: `http://127.0.0.1/${value()}`, headers: { Authorization: value(), X: value() } },
      },
    };
    const project: McpServersLoad = { servers: [], problems: [] };
    const got = JSON.stringify([...serversFrom(data, "p", env, project, allowed).values()]);
    for (const n of names) {
      if (!allowed.has(n)) assert.ok(!got.includes(env[n] as string), `seed ${seed}: ${n} leaked into ${got}`);
    }
    const mentioned = names.filter((n) => JSON.stringify(data).includes(`\${${n}`));
    const withheld = mentioned.filter((n) => !allowed.has(n));
    assert.equal(project.problems.length > 0, withheld.length > 0, `seed ${seed}`);
    for (const n of mentioned.filter((m) => allowed.has(m)))
      assert.ok(got.includes(env[n] as string), `seed ${seed}: allowed ${n} not expanded`);
    const mine: McpServersLoad = { servers: [], problems: [] };
    const all = JSON.stringify([...serversFrom(data, "u", env, mine).values()]);
    for (const n of mentioned)
      assert.ok(all.includes(env[n] as string), `seed ${seed}: the user's own file must expand ${n}`);
    assert.equal(mine.problems.length, 0);
  }
});
