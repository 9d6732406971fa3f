// tool_create (issue 18, seed 004): the scripted model adds a tool to its own
// agent; rt runs the tests in the sandbox and offers the tool from the next
// request only when they pass; a failing test leaves nothing behind.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree, treeHash } from "../helpers.ts";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { makeAgent, collect, ofType, last } from "./../agent/harness.ts";
import { forgetCustomTools } from "../../src/extensions/customTools.ts";
import { unregisterTools } from "../../src/tools/registry.ts";
import { mcpToolList } from "../../src/faces/mcp/toolList.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";

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

const LINES_PY = "import json, sys\na = json.load(sys.stdin)\nprint(sum(1 for _ in open(a['path'])), 'lines')\n";

function createArgs(name: string, expect: string) {
  return {
    name,
    description: "Count the lines of a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    command: ["python3", `.rt/tools/${name}.py`],
    read_only: true,
    script: { file: `${name}.py`, content: LINES_PY },
    tests: [{ args: { path: "data.txt" }, exit_code: 0, output_contains: expect }],
  };
}

test("passing tests: the tool is registered, offered from the next request and called; its files stay in .rt/tools", async () => {
  const root = tempTree({ "data.txt": "a\nb\nc\n" });
  server.script(
    reply.toolCall("tool_create", createArgs("line_count", "3 lines")),
    reply.toolCall("line_count", { path: "data.txt" }),
    reply.text("3 lines."),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("count lines, make a tool for it"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  const ends = ofType(events, "tool_end");
  assert.equal(ends[0].success, true, JSON.stringify(ends[0]));
  assert.equal(ends[1].success, true, JSON.stringify(ends[1]));
  const offered = (i: number) =>
    server.completions[i].body.tools.map((t: { function: { name: string } }) => t.function.name);
  // tool_create is deferred: tool_search names it (a call by name reaches it all the same).
  const search = server.completions[0].body.tools.find(
    (t: { function: { name: string } }) => t.function.name === "tool_search",
  );
  assert.match(search.function.description, /\btool_create\b/);
  assert.ok(!offered(0).includes("line_count"));
  assert.ok(offered(1).includes("line_count"));
  const toolMsgs = server.completions[2].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.match(toolMsgs[0].content, /passed 1 test\(s\) in the sandbox/);
  assert.match(toolMsgs[1].content, /3 lines/);
  const def = JSON.parse(fs.readFileSync(path.join(root, ".rt/tools/line_count.json"), "utf8"));
  assert.equal(def.name, "line_count");
  assert.equal(fs.readFileSync(path.join(root, ".rt/tools/line_count.py"), "utf8"), LINES_PY);
  // Agent-only: rt's MCP face never lists tool_create.
  assert.ok(!mcpToolList(createWorkspace({ root })).some((t) => t.name === "tool_create"));
  agent.close();
});

test("failing tests: not registered, its files removed, the failure shown to the model", async () => {
  const root = tempTree({ "data.txt": "a\nb\nc\n" });
  const before = treeHash(root);
  server.script(
    reply.toolCall("tool_create", createArgs("bad_count", "99 lines")),
    reply.toolCall("bad_count", { path: "data.txt" }),
    reply.text("gave up"),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("make a tool"));
  const ends = ofType(events, "tool_end");
  assert.equal(ends[0].success, false);
  assert.equal(ends[1].success, false);
  const toolMsgs = server.completions[2].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.match(toolMsgs[0].content, /1 of 1 test\(s\) failed.*not registered/s);
  assert.match(toolMsgs[0].content, /output does not contain "99 lines"/);
  assert.match(toolMsgs[0].content, /output: 3 lines/);
  assert.match(toolMsgs[1].content, /unknown tool "bad_count"/);
  assert.ok(
    !server.completions[1].body.tools.some((t: { function: { name: string } }) => t.function.name === "bad_count"),
  );
  assert.ok(!fs.existsSync(path.join(root, ".rt/tools/bad_count.json")));
  assert.ok(!fs.existsSync(path.join(root, ".rt/tools/bad_count.py")));
  assert.equal(treeHash(root), before);
  agent.close();
});

test("a test runs in the read-only sandbox: a tool that writes fails it, and nothing is written", async () => {
  const root = tempTree({ "data.txt": "x\n" });
  const args = {
    name: "writer",
    description: "Writes a file.",
    parameters: { type: "object", properties: {} },
    command: ["sh", "-c", "echo hi > made.txt && echo done"],
    read_only: false,
    tests: [{ args: {}, output_contains: "done" }],
  };
  server.script(reply.toolCall("tool_create", args), reply.text("ok"));
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("make a writer"));
  const end = ofType(events, "tool_end")[0];
  assert.equal(end.success, false);
  assert.ok(!fs.existsSync(path.join(root, "made.txt")));
  assert.ok(!fs.existsSync(path.join(root, ".rt/tools/writer.json")));
  agent.close();
});

test("an invalid definition or a taken name is refused before anything is written", async () => {
  const root = tempTree({ "data.txt": "x\n" });
  const bad = { ...createArgs("t1", "x"), parameters: { type: "object", properties: { n: { type: "integr" } } } };
  server.script(
    reply.toolCall("tool_create", bad),
    reply.toolCall("tool_create", { ...createArgs("grep", "x") }),
    reply.text("ok"),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("x"));
  const ends = ofType(events, "tool_end");
  assert.equal(ends[0].success, false);
  assert.equal(ends[1].success, false);
  const toolMsgs = server.completions[2].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.match(toolMsgs[0].content, /parameters: not a valid JSON Schema/);
  assert.match(toolMsgs[1].content, /a tool named grep already exists/);
  assert.ok(!fs.existsSync(path.join(root, ".rt/tools")));
  agent.close();
});
