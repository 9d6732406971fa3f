// The loop's functions run without the Agent facade, the way a subagent runs
// them: its own history (its own session file, none of the parent's
// messages), its own tool set, system prompt and limits. The model is played
// by the scripted server over HTTP; the tools are the real ones on real files.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { makeAgent, collect, ofType, last, openaiProvider, requestText } from "./harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { Approvals, type ApprovalRequest } from "../../src/agent/approval.ts";
import { SessionLog, readRecords } from "../../src/agent/session.ts";
import { History } from "../../src/agent/history.ts";
import { createLoopContext, TurnState, type LoopContext } from "../../src/agent/loopContext.ts";
import { restrictedToolSet } from "../../src/agent/toolSet.ts";
import { runUserTurn, runModelTurn } from "../../src/agent/turn.ts";
import { nativeCall, runToolCalls } from "../../src/agent/toolCalls.ts";
import { findTool } from "../../src/tools/registry.ts";
import type { AgentEvent } from "../../src/agent/events.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const SUB_PROMPT = "You are Explorer, a read-only subagent. Answer with file:line references.";

function subagentContext(
  root: string,
  opts: { maxTurns?: number; approve?: (r: ApprovalRequest) => Promise<"yes" | "no" | "always"> } = {},
): LoopContext {
  const ws = agentWorkspace(createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } }));
  const session = SessionLog.create(ws, "openai-compatible/test-model", "tools");
  return createLoopContext({
    workspace: ws,
    model: {
      provider: openaiProvider(server),
      model: "test-model",
      label: "openai-compatible/test-model",
      contextWindow: 100_000,
      price: { input: 1, output: 2 },
    },
    tools: restrictedToolSet([findTool("read")!, findTool("grep")!]),
    approvals: new Approvals("ask", opts.approve),
    protocol: "tools",
    history: new History(session.log),
    systemPrompt: () => SUB_PROMPT,
    limits: { maxTurns: opts.maxTurns ?? 5 },
  });
}

test("a subagent's loop: own history, own tools (a call outside them is refused, unasked), own system prompt; the parent's context is untouched", async () => {
  const root = tempTree({ "src/a.py": "def f():\n    return 1\n" });
  const parent = makeAgent(root, server);
  server.script(reply.text("parent answer"));
  assert.equal(last(await collect(parent.run("the parent's secret question"))).type, "turn_complete");
  const parentContext = JSON.stringify(parent.contextMessages);

  server.reset();
  server.script(
    reply.toolCall("grep", { pattern: "def f", path: "src" }),
    reply.toolCall("edit", { path: "src/a.py", old_string: "return 1", new_string: "return 2" }),
    reply.text("f is defined at src/a.py:1"),
  );
  const asked: string[] = [];
  const sub = subagentContext(root, { approve: async (r) => (asked.push(r.tool), "yes") });
  const events = await collect(runUserTurn(sub, "where is f defined?"));
  const done = last(events);
  assert.equal(done.type, "turn_complete", JSON.stringify(done));
  assert.equal(done.type === "turn_complete" && done.text, "f is defined at src/a.py:1");

  // Each request carried only the subagent's system prompt, tools and history.
  assert.equal(server.completions.length, 3);
  for (const req of server.completions) {
    assert.deepEqual(
      req.body.tools.map((t: { function: { name: string } }) => t.function.name),
      ["read", "grep"],
    );
    assert.equal(req.body.messages[0].role, "system");
    assert.equal(req.body.messages[0].content, SUB_PROMPT);
    assert.doesNotMatch(requestText(req.body), /secret question|parent answer/);
  }
  assert.match(requestText(server.completions[1].body), /src\/a\.py:1: def f\(\):/);

  // edit is not in its set: an unknown tool, refused without asking, the file unchanged.
  const editEnd = ofType(events, "tool_end").find((e) => e.name === "edit")!;
  assert.equal(editEnd.success, false);
  assert.match(editEnd.output, /unknown tool "edit"; available tools: read, grep/);
  assert.deepEqual(asked, []);
  assert.equal(fs.readFileSync(path.join(root, "src/a.py"), "utf8"), "def f():\n    return 1\n");

  // Its usage is its own; its session file is its own; the parent's context did not change.
  assert.equal(sub.totals.usage.requests, 3);
  assert.ok(sub.totals.cost !== undefined && sub.totals.cost > 0);
  assert.equal(parent.usage.usage.requests, 1);
  assert.equal(JSON.stringify(parent.contextMessages), parentContext);
  assert.notEqual(sub.history.log.id, parent.sessionId);
  assert.ok(sub.history.log.file && parent.sessionFile && sub.history.log.file !== parent.sessionFile);
  const subMessages = readRecords(sub.history.log.file!).filter((r) => r.t === "message");
  assert.equal(subMessages.length, 6); // user, call, result, call, result, answer
  assert.ok(!fs.readFileSync(parent.sessionFile!, "utf8").includes("where is f defined"));
  sub.history.log.close();
  parent.close();
});

test("a subagent's own limits: its max turns stop its turn, not the parent's", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  server.script(
    reply.toolCall("read", { path: "a.txt" }),
    reply.toolCall("read", { path: "a.txt", limit: 1 }),
    reply.text("late"),
  );
  const sub = subagentContext(root, { maxTurns: 2 });
  const events = await collect(runUserTurn(sub, "look"));
  const end = last(events);
  assert.equal(end.type === "error" && end.kind, "max_turns");
  assert.equal(server.completions.length, 2);
  sub.history.log.close();
});

test("runModelTurn and runToolCalls compose: one request, then its calls, each result in the history", async () => {
  const root = tempTree({ "a.txt": "alpha\nbeta\n" });
  server.script({
    toolCalls: [
      { name: "read", arguments: { file_path: "a.txt" } },
      { name: "grep", arguments: { pattern: "beta" } },
    ],
  });
  const sub = subagentContext(root);
  sub.history.add({ role: "user", content: "read a.txt" });
  const turn = new TurnState();
  const seen: AgentEvent[] = [];
  const gen = runModelTurn(sub, turn, undefined);
  let step = await gen.next();
  while (!step.done) seen.push(step.value), (step = await gen.next());
  const answer = step.value;
  assert.equal(answer.toolCalls.length, 2);
  sub.history.add({ role: "assistant", content: answer.text, toolCalls: answer.toolCalls });
  const stopped = await collect(
    runToolCalls(sub, answer.toolCalls.map(nativeCall), turn, undefined) as AsyncGenerator<AgentEvent>,
  );
  assert.deepEqual(
    ofType(stopped, "tool_end").map((e) => [e.name, e.success]),
    [
      ["read", true],
      ["grep", true],
    ],
  );
  const results = sub.history.context.filter((e) => e.message.role === "tool").map((e) => e.message.content);
  assert.match(results[0], /alpha/);
  assert.match(results[1], /a\.txt:2: beta/);
  assert.equal(turn.usage.requests, 1);
  assert.equal(ofType(seen, "model_turn_end").length, 1);
  sub.history.log.close();
});
