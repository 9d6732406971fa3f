// Steering (RunOptions.steering): a message the user sends while a turn runs
// is given to the model at the next tool-call boundary: after the whole batch
// of tool results, before the next model request, as the user's words, in the
// shape each API wants (OpenAI: tool messages right after the assistant's
// calls, then a user message; Anthropic: one user message, tool_result blocks
// first, then the text). The session log holds it as a prompt: a resumed
// session shows it, and it is a rewind point with its own checkpoint. The
// real agent loop, real tools, the scripted server over HTTP.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { anthropicProvider, makeAgent, ofType } from "./harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { performRewind, planCodeRewind, rewindPoints, sessionRecords } from "../../src/agent/rewind.ts";
import { sessionTranscript } from "../../src/agent/transcript.ts";
import type { AgentEvent } from "../../src/agent/events.ts";
import type { Agent } from "../../src/agent/loop.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => server.reset());

function agentIn(root: string, opts: Parameters<typeof makeAgent>[2] = {}, config?: object) {
  const ws = createWorkspace({
    root,
    env: {
      ...process.env,
      RT_ROOT: undefined,
      XDG_CONFIG_HOME: tempTree(config ? { "rt/config.json": JSON.stringify(config) } : {}, "rt-config-"),
      XDG_CACHE_HOME: tempTree({}, "rt-cache-"),
    },
  });
  return { agent: makeAgent(root, server, { workspace: ws, ...opts }), ws };
}

/**
 * Runs a turn in which the user "types" `message` when the first tool call starts (as a face does while
 * the call runs); the steering function records how many tool results existed each time it was asked.
 */
async function steeredTurn(agent: Agent, prompt: string, message: string) {
  const typed: string[] = [];
  const asked: number[] = [];
  const events: AgentEvent[] = [];
  const steering = () => {
    asked.push(ofType(events, "tool_end").length);
    return typed.splice(0);
  };
  for await (const ev of agent.run(prompt, { steering })) {
    events.push(ev);
    if (ev.type === "tool_start" && events.filter((e) => e.type === "tool_start").length === 1) typed.push(message);
  }
  return { events, asked, left: typed };
}

test("OpenAI wire: a message typed during a batch is a user message right after the tool messages", async () => {
  const root = tempTree({ "a.txt": "alpha\n", "b.txt": "beta\n" });
  server.script(
    {
      toolCalls: [
        { name: "read", arguments: { path: "a.txt" } },
        { name: "read", arguments: { path: "b.txt" } },
      ],
    },
    reply.text("STEERED-ANSWER"),
  );
  const { agent, ws } = agentIn(root);
  const { events, asked, left } = await steeredTurn(agent, "read both", "STEER: use tabs, not spaces");
  assert.equal(events.at(-1)?.type, "turn_complete", JSON.stringify(events.at(-1)));
  assert.deepEqual(left, [], "taken at the boundary");
  // Asked once, when both results were in (the batch of two read-only calls ran as one).
  assert.deepEqual(asked, [2]);
  // The event stream: both results, then the message, then the next request.
  const order = events.map((e) => e.type).filter((t) => t !== "text" && t !== "reasoning");
  assert.deepEqual(order.slice(order.indexOf("tool_start")), [
    "tool_start",
    "tool_start",
    "tool_end",
    "tool_end",
    "steered",
    "model_turn_end",
    "turn_complete",
  ]);
  assert.deepEqual(ofType(events, "steered"), [{ type: "steered", text: "STEER: use tabs, not spaces" }]);

  assert.equal(server.completions.length, 2, "no extra request: the message rides on the one after the results");
  const messages = server.completions[1].body.messages as Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string }>;
    tool_call_id?: string;
  }>;
  const callAt = messages.findIndex((m) => m.role === "assistant" && m.tool_calls?.length);
  const ids = messages[callAt].tool_calls!.map((c) => c.id);
  assert.deepEqual(
    messages.slice(callAt + 1).map((m) => [m.role, m.tool_call_id ?? m.content]),
    [
      ["tool", ids[0]],
      ["tool", ids[1]],
      ["user", "STEER: use tabs, not spaces"],
    ],
  );

  // The log: a prompt like any other (resume shows it where it came; rewind can go back to just before it).
  const items = sessionTranscript(ws, agent.sessionId).items.map((it) =>
    it.kind === "prompt" ? `> ${it.text}` : it.event.type,
  );
  assert.deepEqual(items, [
    "> read both",
    "tool_start",
    "tool_start",
    "tool_end",
    "tool_end",
    "> STEER: use tabs, not spaces",
    "text",
  ]);
  const points = rewindPoints(sessionRecords(ws, agent.sessionId));
  assert.deepEqual(
    points.map((p) => [p.kind, p.text, p.tree !== undefined]),
    [
      ["prompt", "read both", true],
      ["prompt", "STEER: use tabs, not spaces", true],
    ],
  );
  agent.close();
});

test("Anthropic wire: the message follows the tool_result blocks in the same user message", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("STEERED-ANSWER"));
  const { agent } = agentIn(root, { provider: anthropicProvider(server), modelLabel: "anthropic/test-model" });
  const { events, asked } = await steeredTurn(agent, "read it", "STEER-ANTHROPIC");
  assert.equal(events.at(-1)?.type, "turn_complete", JSON.stringify(events.at(-1)));
  assert.deepEqual(asked, [1]);
  assert.equal(server.completions.length, 2);
  const messages = server.completions[1].body.messages as Array<{
    role: string;
    content: Array<{ type: string; id?: string; tool_use_id?: string; text?: string }>;
  }>;
  // user (prompt), assistant (tool_use), user (tool_result, then the message): the roles alternate.
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  const use = messages[1].content.find((b) => b.type === "tool_use")!;
  assert.deepEqual(
    messages[2].content.map((b) => [b.type, b.tool_use_id ?? b.text]),
    [
      ["tool_result", use.id],
      ["text", "STEER-ANTHROPIC"],
    ],
  );
  agent.close();
});

test("a turn that ends without a tool call never asks: the message stays with the face", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script(reply.text("NO-TOOLS"));
  const { agent } = agentIn(root);
  let asked = 0;
  const events: AgentEvent[] = [];
  for await (const ev of agent.run("just answer", {
    steering: () => {
      asked++;
      return ["never taken"];
    },
  }))
    events.push(ev);
  assert.equal(events.at(-1)?.type, "turn_complete");
  assert.equal(asked, 0);
  assert.equal(ofType(events, "steered").length, 0);
  assert.doesNotMatch(JSON.stringify(agent.contextMessages), /never taken/);
  agent.close();
});

test("several messages at one boundary are one user message; an empty one adds nothing", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script(
    reply.toolCall("read", { path: "a.txt" }),
    reply.toolCall("read", { path: "a.txt:1" }),
    reply.text("OK"),
  );
  const { agent } = agentIn(root);
  const batches = [["FIRST", "SECOND"], ["  "]];
  for await (const _ of agent.run("go", { steering: () => batches.shift() ?? [] })) {
    // drained
  }
  const users = agent.contextMessages.filter((e) => e.message.role === "user").map((e) => e.message.content);
  assert.deepEqual(users, ["go", "FIRST\n\nSECOND"]);
  agent.close();
});

test("rewind to a steered message: the code as it was when it joined, the talk up to its tool results", async () => {
  const root = tempTree({ "x.txt": "zero\n" });
  server.script(
    reply.toolCall("bash", { command: "printf 'one\\n' > x.txt" }),
    reply.toolCall("bash", { command: "printf 'two\\n' > x.txt" }),
    reply.text("DONE"),
  );
  const { agent, ws } = agentIn(root);
  const { events } = await steeredTurn(agent, "write it", "STEER: then write two");
  assert.equal(events.at(-1)?.type, "turn_complete", JSON.stringify(events.at(-1)));
  assert.equal(fs.readFileSync(path.join(root, "x.txt"), "utf8"), "two\n");
  const records = sessionRecords(ws, agent.sessionId);
  const point = rewindPoints(records)[1];
  assert.equal(point.text, "STEER: then write two");
  const plan = planCodeRewind(ws, records, point);
  const out = performRewind(ws, agent.sessionId, point, "both", plan, false, agent.sessionLog);
  assert.equal(fs.readFileSync(path.join(root, "x.txt"), "utf8"), "one\n", "the first call's write stays");
  assert.equal(out.prompt, "STEER: then write two", "offered again for editing");
  const branch = out.session!.state.context.map((e) => e.message.role);
  assert.deepEqual(branch, ["user", "assistant", "tool"], "the prompt, the first call and its result");
  out.session!.log.close();
  agent.close();
});

test("UserPromptSubmit sees a steered message: one it blocks never reaches the model, the user is warned", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  const scripts = tempTree({
    "gate.py": [
      "import json,sys",
      "d=json.load(sys.stdin)",
      'if "FORBIDDEN" in d["prompt"]:',
      '    print("not that", file=sys.stderr)',
      "    sys.exit(2)",
      "",
    ].join("\n"),
  });
  const hooks = {
    UserPromptSubmit: [{ hooks: [{ type: "command", command: `python3 ${path.join(scripts, "gate.py")}` }] }],
  };
  server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("OK"));
  const { agent } = agentIn(root, {}, { hooks });
  const { events } = await steeredTurn(agent, "read it", "FORBIDDEN words");
  assert.equal(events.at(-1)?.type, "turn_complete", JSON.stringify(events.at(-1)));
  assert.equal(ofType(events, "steered").length, 0);
  const warning = ofType(events, "notice").find((n) => n.level === "warning");
  assert.match(warning?.message ?? "", /UserPromptSubmit hook blocked the message sent during the turn.*not that/s);
  assert.equal(server.completions.length, 2);
  assert.doesNotMatch(JSON.stringify(server.completions[1].body.messages), /FORBIDDEN/);
  agent.close();
});
