// The agent loop end to end, in process: real tools on real files, real
// provider code, the model played by the scripted server over HTTP.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { makeAgent, collect, ofType, last, requestText, anthropicProvider } from "./harness.ts";
import type { ApprovalRequest } from "../../src/agent/approval.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

test("a multi-step task: grep, open, edit_lines, diff — the bytes on disk are the fix", async () => {
  const root = tempTree({ "src/calc.py": CALC, "README.md": "calc\n" });
  server.script(
    reply.toolCall("grep", { pattern: "def add", path: "src" }),
    reply.toolCall("open", { path: "src/calc.py:1" }),
    reply.toolCall("edit_lines", {
      path: "src/calc.py",
      command: "replace",
      start_line: 2,
      end_line: 2,
      new_content: "    return a + b",
    }),
    reply.toolCall("bash", { command: "cat src/calc.py" }),
    reply.text("Fixed add in src/calc.py:2 (it subtracted)."),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("add() is wrong, fix it"));
  const done = last(events);
  assert.equal(done.type, "turn_complete", JSON.stringify(done));
  assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), CALC.replace("a - b", "a + b"));
  assert.equal(done.type === "turn_complete" && done.text, "Fixed add in src/calc.py:2 (it subtracted).");
  assert.equal(done.type === "turn_complete" && done.model_turns, 5);
  // What the model saw: the grep hit, the numbered window, the edit's result, the new file.
  const reqs = server.completions;
  assert.equal(reqs.length, 5);
  const toolMsgs = reqs[4].body.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => m.content);
  assert.match(toolMsgs[0], /src\/calc\.py:1: def add\(a, b\):/);
  assert.match(toolMsgs[1], /2: {5}return a - b/);
  assert.match(toolMsgs[3], /return a \+ b/);
  // The tools were offered with their JSON schemas, and the system prompt guides the work.
  const tools = reqs[0].body.tools.map((t: { function: { name: string } }) => t.function.name);
  assert.ok(tools.includes("edit_lines") && tools.includes("grep") && tools.includes("bash"));
  assert.match(reqs[0].body.messages[0].content, /open path:LINE/);
  assert.equal(ofType(events, "tool_end").filter((e) => e.success).length, 4);
  agent.close();
});

test("read-only calls of one answer run in parallel; writes run alone, in order", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 400; i++) files[`d/f${i}.txt`] = `needle ${i}\n`.repeat(50);
  files["w.txt"] = "one\n";
  const root = tempTree(files);
  server.script(
    {
      toolCalls: [
        { name: "grep", arguments: { pattern: "needle 1\\d", path: "d" } },
        { name: "grep", arguments: { pattern: "needle 2\\d", path: "d" } },
        { name: "grep", arguments: { pattern: "needle 3\\d", path: "d" } },
      ],
    },
    {
      toolCalls: [
        { name: "edit", arguments: { path: "w.txt", old_string: "one", new_string: "two" } },
        { name: "edit", arguments: { path: "w.txt", old_string: "two", new_string: "three" } },
      ],
    },
    reply.text("done"),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete");
  const ends = ofType(events, "tool_end");
  const greps = ends.filter((e) => e.name === "grep");
  assert.equal(greps.length, 3);
  // Overlap: every grep started before any of them ended.
  const firstEnd = Math.min(...greps.map((e) => e.ended_at));
  for (const g of greps) assert.ok(g.started_at < firstEnd, `grep ${g.id} started after another ended: not parallel`);
  // The two edits: sequential (the second depends on the first) and both applied.
  const edits = ends.filter((e) => e.name === "edit");
  assert.ok(edits[0].ended_at <= edits[1].started_at);
  assert.equal(fs.readFileSync(path.join(root, "w.txt"), "utf8"), "three\n");
  agent.close();
});

test("approval: never denies edits and commands; the model gets a blocked result and the file is untouched", async () => {
  const root = tempTree({ "a.txt": "keep\n" });
  server.script(
    reply.toolCall("edit", { path: "a.txt", old_string: "keep", new_string: "lost" }),
    reply.toolCall("bash", { command: "touch made" }),
    reply.text("I could not edit."),
  );
  const agent = makeAgent(root, server, { approval: "never" });
  const events = await collect(agent.run("change a.txt"));
  assert.equal(last(events).type, "turn_complete");
  const blocked = ofType(events, "tool_blocked");
  assert.deepEqual(
    blocked.map((b) => b.name),
    ["edit", "bash"],
  );
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "keep\n");
  assert.equal(fs.existsSync(path.join(root, "made")), false);
  const toolMsg = server.completions[1].body.messages.find((m: { role: string }) => m.role === "tool");
  assert.match(toolMsg.content, /^blocked: .*approval mode is "never"/);
  agent.close();
});

test("approval: ask → the callback decides; no is blocked, always is remembered for the session", async () => {
  const root = tempTree({ "a.txt": "v0\n" });
  const asked: ApprovalRequest[] = [];
  const answers = ["no", "always"] as const;
  server.script(
    reply.toolCall("edit", { path: "a.txt", old_string: "v0", new_string: "v1" }),
    reply.toolCall("edit", { path: "a.txt", old_string: "v0", new_string: "v2" }),
    reply.toolCall("edit", { path: "a.txt", old_string: "v2", new_string: "v3" }),
    reply.toolCall("read", { path: "a.txt" }),
    reply.text("ok"),
  );
  const agent = makeAgent(root, server, {
    approval: "ask",
    approve: async (req) => {
      asked.push(req);
      return answers[asked.length - 1] ?? "no";
    },
  });
  const events = await collect(agent.run("edit"));
  assert.equal(last(events).type, "turn_complete");
  // Asked twice only: the third edit was covered by "always", reading never asks.
  assert.equal(asked.length, 2);
  assert.equal(asked[0].category, "edit");
  assert.equal(asked[0].summary, "edit a.txt");
  assert.equal(ofType(events, "tool_blocked").length, 1);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "v3\n");
  agent.close();
});

test("approval: auto-edit approves edits but asks for commands; ask without a terminal denies", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const asked: string[] = [];
  server.script(
    reply.toolCall("edit", { path: "a.txt", old_string: "x", new_string: "y" }),
    reply.toolCall("bash", { command: "echo hi" }),
    reply.text("ok"),
  );
  const agent = makeAgent(root, server, { approval: "auto-edit", approve: async (r) => (asked.push(r.tool), "no") });
  const events = await collect(agent.run("go"));
  assert.deepEqual(asked, ["bash"]);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "y\n");
  assert.equal(ofType(events, "tool_blocked")[0].name, "bash");
  agent.close();

  server.reset();
  server.script(reply.toolCall("bash", { command: "echo hi" }), reply.text("ok"));
  const headless = makeAgent(root, server, { approval: "ask" });
  const ev2 = await collect(headless.run("go"));
  assert.match(ofType(ev2, "tool_blocked")[0].reason, /no terminal to ask on.*--approval auto/);
  headless.close();
});

test("plan mode offers only read-only tools and refuses a write the model calls anyway", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  server.script(reply.toolCall("write", { path: "b.txt", content: "new" }), reply.text("Plan: ..."));
  const agent = makeAgent(root, server, { approval: "plan" });
  const events = await collect(agent.run("plan it"));
  const offered: string[] = server.completions[0].body.tools.map(
    (t: { function: { name: string } }) => t.function.name,
  );
  assert.ok(offered.includes("read") && offered.includes("grep"));
  for (const w of ["write", "edit", "edit_lines", "bash"]) assert.ok(!offered.includes(w), `${w} offered in plan mode`);
  assert.equal(ofType(events, "tool_blocked")[0].name, "write");
  assert.equal(fs.existsSync(path.join(root, "b.txt")), false);
  assert.match(server.completions[0].body.messages[0].content, /plan mode/);
  agent.close();
});

test("three identical consecutive calls stop the turn with loop detected; the third does not run", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const same = () => reply.toolCall("bash", { command: "echo again >> log.txt" });
  server.script(same(), same(), same(), reply.text("never reached"));
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("go"));
  const end = last(events);
  assert.equal(end.type, "error");
  assert.equal(end.type === "error" && end.kind, "loop_detected");
  assert.match(end.type === "error" ? end.message : "", /loop detected/);
  assert.equal(fs.readFileSync(path.join(root, "log.txt"), "utf8"), "again\nagain\n");
  assert.equal(server.pending, 1);
  assert.equal(ofType(events, "tool_start").length, 2);
  agent.close();
});

test("--max-turns stops the turn after N model requests", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  server.script(
    reply.toolCall("read", { path: "a.txt" }),
    reply.toolCall("ls", {}),
    reply.toolCall("read", { path: "a.txt", limit: 1 }),
    reply.text("late"),
  );
  const agent = makeAgent(root, server, { maxTurns: 2 });
  const events = await collect(agent.run("go"));
  const end = last(events);
  assert.equal(end.type === "error" && end.kind, "max_turns");
  assert.match(end.type === "error" ? end.message : "", /--max-turns 2/);
  assert.equal(server.completions.length, 2);
  agent.close();
});

test("tool output over the limit is cut keeping head and tail; the whole is saved under .rt/", async () => {
  const big = Array.from({ length: 1200 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`).join("\n") + "\n";
  const root = tempTree({ "big.txt": big });
  server.script(reply.toolCall("bash", { command: "cat big.txt" }), reply.text("seen"));
  const agent = makeAgent(root, server, { toolOutputMaxChars: 5_000 });
  const events = await collect(agent.run("look"));
  const end = ofType(events, "tool_end")[0];
  assert.ok(end.output.length <= 5_000, `output is ${end.output.length} chars`);
  assert.match(end.output, /line 1 x/);
  assert.match(end.output, /line 1200 x/);
  assert.match(end.output, /characters cut here; the full output is saved in \.rt\/tool-output\/.*\.txt/);
  assert.ok(end.saved_output);
  const saved = fs.readFileSync(path.join(root, end.saved_output!), "utf8");
  assert.ok(saved.includes(big.trimEnd()));
  const toolMsg = server.completions[1].body.messages.find((m: { role: string }) => m.role === "tool");
  assert.equal(toolMsg.content, end.output);
  agent.close();
});

test("saved tool outputs are never overwritten when call ids repeat (text mode restarts its numbering; servers reuse ids)", async () => {
  const root = tempTree({});
  const big = (tag: string) => `for i in $(seq 1 800); do echo "${tag} $i xxxxxxxxxxxxxxxxxxxx"; done`;
  server.script(
    { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: big("FIRST") } }] },
    { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: big("SECOND") } }] },
    reply.text("seen"),
  );
  const agent = makeAgent(root, server, { toolOutputMaxChars: 5_000 });
  const ends = ofType(await collect(agent.run("look")), "tool_end");
  assert.equal(ends.length, 2);
  const [a, b] = ends.map((e) => e.saved_output!);
  assert.ok(a && b && a !== b, `${a} vs ${b}`);
  assert.match(fs.readFileSync(path.join(root, a), "utf8"), /FIRST 800/);
  assert.match(fs.readFileSync(path.join(root, b), "utf8"), /SECOND 800/);
  assert.ok(ends[1].output.includes(b));
  agent.close();
});

test("text mode: bash blocks run with rt on PATH, JSON actions too; outputs go back to the model", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  server.script(
    reply.text("Let me look.\n\n```bash\nrt grep 'return a - b' src\n```\n"),
    reply.text(
      'Fix it:\n\n```bash\nrt edit src/calc.py 2 2 <<\'EOF\'\n    return a + b\nEOF\n```\n\n```json\n{"action": "edit_file", "path": "src/calc.py", "old": "a * b", "new": "b * a"}\n```\n',
    ),
    reply.text("Done: add fixed, mul reordered."),
  );
  const agent = makeAgent(root, server, { protocol: "text" });
  const events = await collect(agent.run("fix add"));
  assert.equal(last(events).type, "turn_complete", JSON.stringify(last(events)));
  assert.equal(
    fs.readFileSync(path.join(root, "src/calc.py"), "utf8"),
    CALC.replace("a - b", "a + b").replace("a * b", "b * a"),
  );
  // No native tools in text mode; the system prompt teaches the protocol.
  assert.equal(server.completions[0].body.tools, undefined);
  assert.match(server.completions[0].body.messages[0].content, /fenced bash blocks/);
  // The grep ran through the rt shim and its output was fed back as a user message.
  const second = server.completions[1].body.messages;
  const feedback = second[second.length - 1];
  assert.equal(feedback.role, "user");
  assert.match(feedback.content, /\$ rt grep 'return a - b' src/);
  assert.match(feedback.content, /src\/calc\.py:2: {5}return a - b/);
  const third = requestText(server.completions[2].body);
  assert.match(third, /▶ edit_file/);
  const starts = ofType(events, "tool_start");
  assert.deepEqual(
    starts.map((s) => [s.name, s.protocol]),
    [
      ["bash", "text"],
      ["bash", "text"],
      ["edit_file", "text"],
    ],
  );
  agent.close();
});

test("auto protocol: a model that rejects tools is retried in text mode (tools_unsupported)", async () => {
  const root = tempTree({ "a.txt": "hello\n" });
  server.script(reply.toolsUnsupported(), reply.text("```bash\nrt open a.txt\n```"), reply.text("It says hello."));
  const agent = makeAgent(root, server, { protocol: "auto" });
  const events = await collect(agent.run("what is in a.txt?"));
  const end = last(events);
  assert.equal(end.type, "turn_complete", JSON.stringify(end));
  assert.equal(end.type === "turn_complete" && end.protocol, "text");
  assert.match(ofType(events, "notice")[0].message, /does not accept native tool calls.*text mode/);
  const [first, retry] = server.completions;
  assert.ok(first.body.tools?.length > 0);
  assert.equal(retry.body.tools, undefined);
  assert.match(requestText(server.completions[2].body), /1: hello/);
  assert.equal(end.type === "turn_complete" && end.model_turns, 2);
  agent.close();
});

test("protocol tools (not auto): tools_unsupported ends the turn with advice", async () => {
  const root = tempTree({});
  server.script(reply.toolsUnsupported());
  const agent = makeAgent(root, server, { protocol: "tools" });
  const end = last(await collect(agent.run("hi")));
  assert.equal(end.type === "error" && end.kind, "tools_unsupported");
  assert.match(end.type === "error" ? end.message : "", /--protocol text/);
  agent.close();
});

test("auto protocol: tool calls written as plain text switch the session to text mode", async () => {
  const root = tempTree({ "a.txt": "hello\n" });
  server.script(
    reply.text('<tool_call>\n{"name": "read", "arguments": {"path": "a.txt"}}\n</tool_call>'),
    reply.text("It says hello."),
  );
  const agent = makeAgent(root, server, { protocol: "auto" });
  const events = await collect(agent.run("read a.txt"));
  const end = last(events);
  assert.equal(end.type === "turn_complete" && end.protocol, "text");
  assert.match(ofType(events, "notice")[0].message, /wrote its tool calls as text/);
  assert.equal(server.completions[1].body.tools, undefined);
  assert.match(requestText(server.completions[1].body), /1: hello/);
  agent.close();
});

test("a stream that breaks mid-answer is reported, and the session keeps what arrived", async () => {
  const root = tempTree({});
  server.script({ text: "The first part of a long answer that", breakAfter: 5 }, reply.text("Resumed."));
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("explain"));
  const end = last(events);
  assert.equal(end.type, "error");
  assert.equal(end.type === "error" && end.kind, "stream_broken");
  const partial = ofType(events, "text")
    .map((e) => e.delta)
    .join("");
  assert.ok(partial.length > 0);
  const ev2 = await collect(agent.run("go on"));
  assert.equal(last(ev2).type, "turn_complete");
  const sent = server.completions[1].body.messages;
  const assistant = sent.find((m: { role: string }) => m.role === "assistant");
  assert.ok(assistant.content.startsWith(partial), "the partial answer is in the next request");
  assert.match(assistant.content, /cut off/);
  agent.close();
});

test("an interrupt (abort) mid-stream ends the turn as interrupted; the session goes on", async () => {
  const root = tempTree({});
  server.script({ text: "thinking about it slowly", hangAfter: 3 }, reply.text("second answer"));
  const agent = makeAgent(root, server);
  const controller = new AbortController();
  const events: string[] = [];
  for await (const ev of agent.run("first", { signal: controller.signal })) {
    events.push(ev.type);
    if (ev.type === "text") controller.abort();
  }
  assert.equal(events[events.length - 1], "error");
  const ev2 = await collect(agent.run("second"));
  const end = last(ev2);
  assert.equal(end.type === "turn_complete" && end.text, "second answer");
  const sent = server.completions[1].body.messages
    .map((m: { role: string; content: string }) => `${m.role}: ${m.content}`)
    .join("\n");
  assert.match(sent, /user: first/);
  assert.match(sent, /interrupted/);
  agent.close();
});

test("usage: tokens per turn and per session, and cost when a price is configured", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  server.script(
    reply.toolCall("read", { path: "a.txt" }, { usage: { input: 1000, output: 100 } }),
    reply.text("ok", { usage: { input: 1200, output: 50, cached: 1000 } }),
    reply.text("again", { usage: { input: 1300, output: 10 } }),
  );
  const agent = makeAgent(root, server, { price: { input: 3, output: 15, cached_input: 0.3 } });
  const e1 = last(await collect(agent.run("one")));
  assert.equal(e1.type, "turn_complete");
  if (e1.type !== "turn_complete") return;
  assert.equal(e1.usage.input_tokens, 2200);
  assert.equal(e1.usage.output_tokens, 150);
  assert.equal(e1.usage.cached_input_tokens, 1000);
  assert.equal(e1.usage.requests, 2);
  // 1200 fresh input at $3/M, 1000 cached at $0.30/M, 150 output at $15/M.
  assert.ok(Math.abs((e1.cost ?? 0) - (1200 * 3 + 1000 * 0.3 + 150 * 15) / 1e6) < 1e-12);
  const e2 = last(await collect(agent.run("two")));
  if (e2.type !== "turn_complete") assert.fail("second turn failed");
  assert.equal(e2.usage.input_tokens, 1300);
  assert.equal(e2.session_usage.input_tokens, 3500);
  assert.equal(e2.session_usage.requests, 3);
  agent.close();
});

test("the Anthropic protocol drives the same loop (tool use, thinking kept with its signature)", async () => {
  const root = tempTree({ "a.txt": "hello\n" });
  server.script(
    { reasoning: "I should read it.", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] },
    reply.text("It says hello."),
  );
  const agent = makeAgent(root, server, { provider: anthropicProvider(server) });
  const events = await collect(agent.run("read a.txt"));
  assert.equal(last(events).type, "turn_complete");
  assert.equal(
    ofType(events, "reasoning")
      .map((e) => e.delta)
      .join(""),
    "I should read it.",
  );
  const second = server.completions[1];
  assert.equal(second.path, "/v1/messages");
  const text = JSON.stringify(second.body.messages);
  assert.match(text, /tool_result/);
  assert.match(text, /1: hello/);
  // Anthropic requires the thinking of a tool-use turn to come back signed.
  assert.match(text, /"thinking":"I should read it\."/);
  assert.match(text, /"signature":"sig-test"/);
  agent.close();
});

test("project instructions (AGENTS.md) are part of the system prompt", async () => {
  const root = tempTree({ "AGENTS.md": "Always run `make check` after editing.\n" });
  server.script(reply.text("ok"));
  const agent = makeAgent(root, server);
  await collect(agent.run("hi"));
  assert.match(server.completions[0].body.messages[0].content, /Project instructions \(AGENTS\.md\)[\s\S]*make check/);
  agent.close();
});

test("project instructions: a CLAUDE.md symlink to AGENTS.md is read; an AGENTS.md leading out of the root is not", async () => {
  const outside = tempTree({ "secret.txt": "OUTSIDE-SECRET\n" });
  const root = tempTree({ "AGENTS.md": "Use tabs.\n" });
  fs.symlinkSync("AGENTS.md", path.join(root, "CLAUDE.md"));
  const root2 = tempTree({ "CLAUDE.md": "Prefer small diffs.\n" });
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root2, "AGENTS.md"));
  server.script(reply.text("ok"), reply.text("ok"));
  for (const r of [root, root2]) {
    const agent = makeAgent(r, server);
    await collect(agent.run("hi"));
    agent.close();
  }
  assert.match(server.completions[0].body.messages[0].content, /Project instructions \(AGENTS\.md\)\n\nUse tabs\./);
  const second = server.completions[1].body.messages[0].content;
  assert.doesNotMatch(second, /OUTSIDE-SECRET/);
  assert.match(second, /Project instructions \(CLAUDE\.md\)\n\nPrefer small diffs\./);
});

test("auto-compaction prunes old tool outputs first (the newest ones stay), and stops there when that is enough", async () => {
  const body = (tag: string) =>
    Array.from({ length: 400 }, (_, i) => `${tag} line ${i} ${"z".repeat(40)}`).join("\n") + "\n"; // ~6,000 tokens
  const root = tempTree({ "big1.txt": body("BIG1"), "big2.txt": body("BIG2") });
  server.script(
    reply.toolCall("read", { path: "big1.txt" }),
    reply.toolCall("read", { path: "big2.txt" }),
    reply.text("read both"),
  );
  const agent = makeAgent(root, server, { contextWindow: 20_000, toolOutputMaxChars: 30_000 });
  const events = await collect(agent.run("read the two files"));
  assert.equal(last(events).type, "turn_complete");
  const end = ofType(events, "compact_end")[0];
  assert.ok(end, "compaction ran");
  assert.equal(end.pruned, 1);
  assert.equal(end.summarized, false);
  assert.ok(end.tokens_after < end.tokens_before);
  assert.equal(server.completions.length, 3, "no summary request: pruning was enough");
  const third = requestText(server.completions[2].body);
  assert.doesNotMatch(third, /BIG1 line 7 /);
  assert.match(third, /output pruned to save context/);
  assert.match(third, /BIG2 line 7 /);
  agent.close();
});

test("plan mode in text mode: shell blocks run without asking, read-only (sandboxed, safe-read-only profile)", async () => {
  const root = tempTree({ "src/calc.py": CALC });
  server.script(
    reply.text(
      "```bash\nrt grep 'return a' src\n```\n```bash\nrt edit src/calc.py 2 2 <<'EOF'\n    return a + b\nEOF\n```",
    ),
    reply.text("Plan: change line 2."),
  );
  const asked: string[] = [];
  const agent = makeAgent(root, server, {
    approval: "plan",
    protocol: "text",
    approve: async (r) => (asked.push(r.tool), "yes"),
  });
  const events = await collect(agent.run("plan the fix"));
  assert.equal(last(events).type, "turn_complete");
  assert.deepEqual(asked, []);
  const ends = ofType(events, "tool_end");
  assert.equal(ends[0].success, true);
  assert.match(ends[0].output, /sandboxed/);
  assert.match(ends[0].output, /src\/calc\.py:2:/);
  assert.equal(ends[1].success, false);
  assert.match(ends[1].output, /safe-read-only/);
  assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), CALC);
  agent.close();
});
