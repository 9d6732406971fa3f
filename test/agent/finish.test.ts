// Finish reasons, reasoning round-trips and stream errors through the agent
// loop, in process: real provider code and real tools, the model played by the
// scripted server (the recorded responses of replay.test.ts are the ground
// truth of the wire format; these are the cases no public recording covers:
// a tool call cut at the output limit, Anthropic's max_tokens, a content
// filter with calls, a stream that breaks after reporting usage...).
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree, rt } from "../helpers.ts";
import { makeAgent, collect, ofType, last, anthropicProvider } from "./harness.ts";
import { createOllamaProvider } from "../../src/agent/providers/ollama.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { agentWorkspace } from "../../src/agent/rtOnPath.ts";
import { FAST } from "./providerHelpers.ts";
import { SessionLog, readRecords } from "../../src/agent/session.ts";
import type { AgentEvent } from "../../src/agent/events.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer({ models: [{ name: "test-model", contextLength: 32768 }] });
});
after(() => server.close());
beforeEach(() => server.reset());

const modelTurnEnds = (events: AgentEvent[]) => ofType(events, "model_turn_end").map((e) => e.finish_reason);

function sessionMessages(file: string | undefined) {
  assert.ok(file, "the session is written");
  return readRecords(file).flatMap((r) => (r.t === "message" ? [r.message] : []));
}

test("length without a tool call: the turn ends as an error (kind length), the partial text kept and marked", async () => {
  const root = tempTree({});
  server.script(reply.text("The answer starts here and then", { finish: "length" }), reply.text("next"));
  const agent = makeAgent(root, server, { maxOutputTokens: 64 });
  const events = await collect(agent.run("explain"));
  const end = last(events);
  assert.equal(end.type, "error");
  assert.equal(end.type === "error" && end.kind, "length");
  assert.equal(end.type === "error" && end.finish_reason, "length");
  assert.equal(end.type === "error" && end.text, "The answer starts here and then");
  assert.match(
    end.type === "error" ? end.message : "",
    /cut off at the model's output limit \(finish reason "length"\).*max_output_tokens \(now 64\)/,
  );
  assert.deepEqual(modelTurnEnds(events), ["length"]);
  const msgs = sessionMessages(agent.sessionFile);
  const answer = msgs.find((m) => m.role === "assistant");
  assert.equal(answer?.role === "assistant" && answer.finish, "length");
  assert.match(
    answer?.content ?? "",
    /^The answer starts here and then\n\n\[rt: this answer was cut off at the output limit \(length\)\]$/,
  );
  // The next prompt shows the model its cut answer, marked.
  await collect(agent.run("go on"));
  const sent = server.completions[1].body.messages.find((m: { role: string }) => m.role === "assistant");
  assert.match(sent.content, /cut off at the output limit/);
  agent.close();
});

test("length in the middle of a tool call: the cut call is not run, the complete one is; the model is asked to redo it", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script(
    {
      toolCalls: [
        { id: "c1", name: "read", arguments: { path: "a.txt" } },
        { id: "c2", name: "write", arguments: '{"path": "b.txt", "content": "half of it' },
      ],
      finish: "length",
    },
    reply.text("Done."),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("copy a to b"));
  assert.equal(last(events).type, "turn_complete");
  assert.deepEqual(modelTurnEnds(events), ["length", "stop"]);
  assert.equal(fs.existsSync(path.join(root, "b.txt")), false, "the cut write did not run");
  const ends = ofType(events, "tool_end");
  assert.deepEqual(
    ends.map((e) => [e.id, e.success]),
    [
      ["c1", true],
      ["c2", false],
    ],
  );
  assert.match(ends[1].output, /cut off at the output limit in the middle of this call's arguments, so it was not run/);
  assert.match(ofType(events, "notice")[0].message, /1 cut tool call not run/);
  // Every call has its result in the next request.
  const tools = server.completions[1].body.messages.filter((m: { role: string }) => m.role === "tool");
  assert.deepEqual(
    tools.map((m: { tool_call_id: string }) => m.tool_call_id),
    ["c1", "c2"],
  );
  agent.close();
});

test("Anthropic max_tokens is length; refusal ends the turn with the model's explanation; no call of it runs", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script({ text: "Partial", finish: "max_tokens" });
  const agent = makeAgent(root, server, { provider: anthropicProvider(server) });
  const e1 = await collect(agent.run("long"));
  assert.equal(last(e1).type === "error" && (last(e1) as { kind: string }).kind, "length");
  assert.deepEqual(
    ofType(e1, "model_turn_end").map((e) => [e.finish_reason, e.stop_reason]),
    [["length", "max_tokens"]],
  );
  server.script({
    text: "I can't",
    toolCalls: [{ id: "t1", name: "write", arguments: { path: "x.txt", content: "x" } }],
    finish: "refusal",
    stopDetails: "Blocked under the usage policy.",
  });
  const e2 = await collect(agent.run("do it"));
  const end = last(e2);
  assert.equal(end.type === "error" && end.kind, "refusal");
  assert.match(end.type === "error" ? end.message : "", /declined to answer .*Blocked under the usage policy\./);
  assert.equal(fs.existsSync(path.join(root, "x.txt")), false, "a refused answer's calls are not run");
  assert.equal(ofType(e2, "tool_start").length, 0);
  // The conversation stays valid: the refused call has a result.
  server.script(reply.text("ok"));
  await collect(agent.run("fine"));
  const msgs = server.completions.at(-1)!.body.messages;
  const results = msgs.flatMap((m: { content: Array<{ type: string; tool_use_id?: string; content?: string }> }) =>
    m.content.filter((b) => b.type === "tool_result"),
  );
  assert.deepEqual(
    results.map((b: { tool_use_id?: string }) => b.tool_use_id),
    ["t1"],
  );
  assert.match(results[0].content, /not run: the model declined/);
  agent.close();
});

test("content_filter ends the turn (kind content_filter); an OpenAI refusal delta is the model's answer, marked refusal", async () => {
  const root = tempTree({});
  server.script(reply.text("Some of it", { finish: "content_filter" }));
  const agent = makeAgent(root, server);
  const e1 = await collect(agent.run("x"));
  assert.equal(last(e1).type === "error" && (last(e1) as { kind: string }).kind, "content_filter");
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });
  server.script({
    raw: [
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: "I can't help with that." }),
      chunk({}, "stop"),
    ],
  });
  const e2 = await collect(agent.run("y"));
  const end = last(e2);
  assert.equal(end.type === "error" && end.kind, "refusal");
  assert.equal(
    ofType(e2, "text")
      .map((e) => e.delta)
      .join(""),
    "I can't help with that.",
  );
  agent.close();
});

test("an Ollama thinking model that spends its whole budget thinking: length, and the message says so", async () => {
  const root = tempTree({});
  const provider = createOllamaProvider({ baseURL: server.url, retry: { maxRetries: 0 } });
  server.script({ reasoning: "Let me think about this very carefully", finish: "length" });
  const agent = makeAgent(root, server, { provider, modelLabel: "ollama/test-model" });
  const events = await collect(agent.run("hard question"));
  const end = last(events);
  assert.equal(end.type === "error" && end.kind, "length");
  assert.match(end.type === "error" ? end.message : "", /spent its whole output budget thinking and wrote no answer/);
  const answer = sessionMessages(agent.sessionFile).find((m) => m.role === "assistant");
  assert.equal(answer?.role === "assistant" && answer.reasoning, "Let me think about this very carefully");
  agent.close();
});

test("usage the server reported before a stream broke is counted (Anthropic reports the input at message_start)", async () => {
  const root = tempTree({});
  // message_start (usage), content_block_start, ping, one delta, then the cut.
  server.script({ text: ["one ", "two ", "three"], breakAfter: 4, usage: { input: 900, output: 50 } });
  const agent = makeAgent(root, server, { provider: anthropicProvider(server) });
  const events = await collect(agent.run("x"));
  const end = last(events);
  assert.equal(end.type, "error");
  assert.equal(end.type === "error" && end.usage?.input_tokens, 900);
  assert.deepEqual(modelTurnEnds(events), ["error"]);
  assert.equal(agent.usage.usage.input_tokens, 900);
  agent.close();
});

test("Anthropic thinking tokens are counted as reasoning tokens", async () => {
  const root = tempTree({});
  server.script({ reasoning: "hmm", text: "ok", usage: { input: 10, output: 40, reasoning: 30 } });
  const agent = makeAgent(root, server, { provider: anthropicProvider(server) });
  const events = await collect(agent.run("x"));
  const done = last(events);
  assert.equal(done.type === "turn_complete" && done.usage.reasoning_tokens, 30);
  agent.close();
});

test("Anthropic: thinking with only a signature and redacted thinking go back unchanged, in order, with the tool use", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script(
    {
      reasoning: "",
      signature: "sig-only",
      redactedThinking: ["opaque-1", "opaque-2"],
      toolCalls: [{ id: "t1", name: "read", arguments: { path: "a.txt" } }],
    },
    reply.text("It says alpha."),
  );
  const agent = makeAgent(root, server, { provider: anthropicProvider(server) });
  const events = await collect(agent.run("read a.txt"));
  assert.equal(last(events).type, "turn_complete");
  const assistant = server.completions[1].body.messages[1];
  assert.equal(assistant.role, "assistant");
  assert.deepEqual(assistant.content, [
    { type: "thinking", thinking: "", signature: "sig-only" },
    { type: "redacted_thinking", data: "opaque-1" },
    { type: "redacted_thinking", data: "opaque-2" },
    { type: "tool_use", id: "t1", name: "read", input: { path: "a.txt" } },
  ]);
  // And after a restart (--continue), from the session file.
  const reopened = SessionLog.open(
    agentWorkspace(createWorkspace({ root, env: { ...process.env, RT_ROOT: undefined } })),
    agent.sessionId,
  );
  const again = makeAgent(root, server, { provider: anthropicProvider(server), session: reopened });
  server.script(reply.text("ok"));
  await collect(again.run("and?"));
  assert.deepEqual(server.completions[2].body.messages[1].content, assistant.content);
  again.close();
  agent.close();
});

test("DeepSeek thinking mode: reasoning_content goes back on every assistant message of a user turn with tool calls, and only there", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  server.script(
    { reasoning: "I should read.", toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.txt" } }] },
    { reasoning: "Now answer.", text: "It says alpha." },
    { reasoning: "Simple.", text: "Hi." },
    reply.text("bye"),
  );
  const agent = makeAgent(root, server);
  await collect(agent.run("read a.txt"));
  await collect(agent.run("hello"));
  await collect(agent.run("again"));
  const msgs = server.completions[3].body.messages.filter((m: { role: string }) => m.role === "assistant");
  assert.deepEqual(
    msgs.map((m: { reasoning_content?: string }) => m.reasoning_content),
    ["I should read.", "Now answer.", undefined],
  );
  agent.close();
});

test("a 4xx-type error inside a stream is not retried, and its words are quoted; a 5xx-type one before any answer is", async () => {
  const root = tempTree({});
  const chunk = (o: object) => JSON.stringify(o);
  const start = chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
  const failing = (code: number, message: string) => ({
    raw: [start, chunk({ error: { code, message }, choices: [{ index: 0, delta: {}, finish_reason: "error" }] })],
  });
  const provider = createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, ...FAST });
  // OpenRouter's shape: {"error": {"code": 400, "message": ...}} in a chunk, before any content.
  server.script(failing(400, "Token limit reached"), reply.text("never"));
  const agent = makeAgent(root, server, { provider });
  const e1 = await collect(agent.run("x"));
  const end = last(e1);
  assert.equal(end.type === "error" && end.kind, "bad_request");
  assert.match(end.type === "error" ? end.message : "", /sent an error in the stream 400: "Token limit reached"/);
  assert.equal(server.completions.length, 1, "not retried");
  server.reset();
  server.script(failing(502, "Upstream error"), reply.text("second try"));
  const e2 = await collect(agent.run("y"));
  assert.equal(last(e2).type, "turn_complete");
  assert.equal(server.completions.length, 2, "retried");
  agent.close();
});

test("rt run: a truncated answer exits 1 with is_error, the partial text as the result and finish_reason length", async () => {
  const root = tempTree({});
  const configHome = tempTree({}, "rt-config-");
  server.script(reply.text("Cut here", { finish: "length" }));
  const env = { OLLAMA_HOST: undefined, OPENAI_API_KEY: undefined, XDG_CONFIG_HOME: configHome };
  const r = await rt(
    [
      "run",
      "--model",
      "openai-compatible/test-model",
      "--base-url",
      server.openaiBaseUrl,
      "--output-format",
      "json",
      "x",
    ],
    { cwd: root, env },
  );
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.is_error, true);
  assert.equal(out.result, "Cut here");
  assert.equal(out.finish_reason, "length");
  assert.equal(out.error.kind, "length");
  server.script(reply.text("Cut again", { finish: "length" }));
  const t = await rt(["run", "--model", "openai-compatible/test-model", "--base-url", server.openaiBaseUrl, "x"], {
    cwd: root,
    env,
  });
  assert.equal(t.code, 1);
  assert.equal(t.stdout, "Cut again\n");
  assert.match(t.stderr, /rt: length: the answer was cut off/);
});
