// `!COMMAND` (Agent.runUserCommand) and the transcript of a session
// (transcript.ts): the user's command runs through the bash tool in the
// session's approval mode, its result joins the conversation and is a rewind
// point; a session's tool calls come back with their results, native and
// text-mode ones alike. The real agent loop against the scripted server.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { collect, makeAgent, ofType, requestText } from "./harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { planCodeRewind, rewindPoints, sessionRecords } from "../../src/agent/rewind.ts";
import { sessionTranscript } from "../../src/agent/transcript.ts";
import type { ApprovalMode } from "../../src/agent/approval.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const env = () => ({
  ...process.env,
  RT_ROOT: undefined,
  XDG_CONFIG_HOME: tempTree({}, "rt-config-"),
  XDG_CACHE_HOME: tempTree({}, "rt-cache-"),
});

function agentIn(root: string, approval: ApprovalMode, e = env(), protocol: "tools" | "text" = "tools") {
  const workspace = createWorkspace({ root, env: e });
  return { agent: makeAgent(root, server, { approval, protocol, workspace }), ws: workspace };
}

test("!COMMAND in ask mode runs without asking, its result reaches the next request, and it is a rewind point with a checkpoint", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const { agent, ws } = agentIn(root, "ask");
  const events = await collect(agent.runUserCommand("printf 'MADE\\n' > made.txt && cat made.txt"));
  assert.deepEqual(
    events.map((e) => e.type),
    ["tool_start", "tool_end"],
  );
  const end = ofType(events, "tool_end")[0];
  assert.equal(end.success, true);
  assert.match(end.output, /--- stdout ---\nMADE/);
  assert.equal(fs.readFileSync(path.join(root, "made.txt"), "utf8"), "MADE\n");
  server.script(reply.text("SEEN"));
  await collect(agent.run("what did it make?"));
  assert.match(
    requestText(server.completions[0].body),
    /The user ran this shell command themselves[\s\S]*<command>\nprintf 'MADE\\n' > made\.txt && cat made\.txt\n<\/command>\nexit code 0[\s\S]*MADE[\s\S]*what did it make\?/,
  );
  const points = rewindPoints(sessionRecords(ws, agent.sessionId));
  assert.deepEqual(
    points.map((p) => [p.kind, p.text, p.tree !== undefined]),
    [
      ["prompt", "!printf 'MADE\\n' > made.txt && cat made.txt", true],
      ["prompt", "what did it make?", true],
    ],
  );
  agent.close();
});

test("!COMMAND's changes are rt's own at a rewind: a rewind to an earlier prompt restores them without calling them changed outside rt", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const { agent, ws } = agentIn(root, "auto");
  server.script(reply.text("ONE"));
  await collect(agent.run("first"));
  await collect(agent.runUserCommand("printf 'B\\n' > a.txt && printf 'NEW\\n' > made.txt"));
  fs.writeFileSync(path.join(root, "hand.txt"), "by hand\n");
  const records = sessionRecords(ws, agent.sessionId);
  const first = rewindPoints(records)[0];
  assert.equal(first.text, "first");
  const plan = planCodeRewind(ws, records, first);
  assert.deepEqual(plan.changes.map((c) => c.path).sort(), ["a.txt", "hand.txt", "made.txt"]);
  assert.deepEqual(plan.outside, ["hand.txt"], "only the file changed after the command, by hand, is outside rt");
  agent.close();
});

test("!COMMAND: the approval mode never runs nothing; plan mode runs it read-only; a failing command says so", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const never = agentIn(root, "never").agent;
  const blocked = await collect(never.runUserCommand("touch never.txt"));
  assert.equal(blocked.length, 1);
  assert.equal(blocked[0].type, "tool_blocked");
  assert.match((blocked[0] as { reason: string }).reason, /"never"/);
  assert.equal(fs.existsSync(path.join(root, "never.txt")), false);
  assert.equal(never.contextMessages.length, 0, "nothing joins the conversation");
  never.close();

  const plan = agentIn(root, "plan").agent;
  const ran = await collect(plan.runUserCommand("cat a.txt; touch plan.txt"));
  assert.equal(fs.existsSync(path.join(root, "plan.txt")), false, "plan mode changes nothing");
  assert.equal(ofType(ran, "tool_start").length + ofType(ran, "tool_blocked").length, 1);
  plan.close();

  const ask = agentIn(root, "ask").agent;
  const failed = ofType(await collect(ask.runUserCommand("echo OOPS >&2; exit 4")), "tool_end")[0];
  assert.equal(failed.success, false);
  assert.match(failed.output, /^error: command failed with exit code 4: OOPS\n[\s\S]*--- stderr ---\nOOPS/);
  ask.close();
});

test("transcript: native and text-mode calls come back with their results, a !COMMAND as its prompt and call; only the last prompts when asked", async () => {
  const root = tempTree({ "a.txt": "alpha\n" });
  const e = env();
  const { agent, ws } = agentIn(root, "auto", e);
  server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ONE"));
  await collect(agent.run("first"));
  await collect(agent.runUserCommand("echo BANG"));
  agent.close();
  const text = agentIn(root, "auto", e, "text").agent;
  // A text-mode session of its own: a fenced bash block, its output in a user message.
  server.script(reply.text("Look:\n\n```bash\necho TEXT-OUT\n```\n"), reply.text("TWO"));
  await collect(text.run("second"));
  const t = sessionTranscript(ws, agent.sessionId);
  const shape = t.items.map((it) =>
    it.kind === "prompt" ? `> ${it.text}` : it.event.type === "tool_end" ? `end ${it.event.output}` : it.event.type,
  );
  assert.equal(shape[0], "> first");
  assert.equal(shape[1], "tool_start");
  assert.match(shape[2], /^end .*alpha/s);
  assert.equal(shape[3], "text");
  assert.equal(shape[4], "> !echo BANG");
  assert.equal(shape[5], "tool_start");
  assert.match(shape[6], /^end exit code 0[\s\S]*BANG/);
  const tt = sessionTranscript(ws, text.sessionId);
  const end = tt.items.find((it) => it.kind === "event" && it.event.type === "tool_end");
  assert.ok(end && end.kind === "event" && end.event.type === "tool_end");
  assert.match(end.event.output, /^exit code 0[^\n]*\n--- stdout ---\nTEXT-OUT/, "the output without its header lines");
  text.close();
  const last = sessionTranscript(ws, agent.sessionId, 1);
  assert.equal(last.omittedPrompts, 1);
  assert.equal(last.items[0].kind === "prompt" && last.items[0].text, "!echo BANG");
});

test("#NOTE (Agent.remember): appended as a list item to the file rt reads, CLAUDE.md when that is the one; bad notes and a symlinked file change nothing", async () => {
  const root = tempTree({ "CLAUDE.md": "# Rules\nno tabs" });
  const e = env();
  const { agent } = agentIn(root, "auto", e);
  assert.deepEqual(agent.remember("project", "##  run make check "), { file: "CLAUDE.md" });
  assert.equal(fs.readFileSync(path.join(root, "CLAUDE.md"), "utf8"), "# Rules\nno tabs\n- run make check\n");
  assert.throws(() => agent.remember("project", "  # "), /the note is empty/);
  assert.throws(() => agent.remember("user", "x".repeat(5000)), /at most 2000/);
  assert.equal(fs.existsSync(path.join(e.XDG_CONFIG_HOME, "rt", "AGENTS.md")), false);
  server.script(reply.text("OK"));
  await collect(agent.run("go"));
  assert.match(
    requestText(server.completions[0].body),
    /# Project instructions \(CLAUDE\.md\)\n\n# Rules\nno tabs\n- run make check/,
  );
  agent.close();

  const outside = tempTree({ "secret.txt": "keep\n" });
  const linked = tempTree({});
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(linked, "AGENTS.md"));
  const other = agentIn(linked, "auto", e).agent;
  assert.throws(() => other.remember("project", "note"), /AGENTS\.md/);
  assert.equal(fs.readFileSync(path.join(outside, "secret.txt"), "utf8"), "keep\n");
  other.close();
});
