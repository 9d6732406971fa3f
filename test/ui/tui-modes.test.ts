// The full-screen UI in a real terminal (tmux), the model played by the
// scripted server: prompts typed while a turn runs wait in a queue (shown
// under the input, ↑ takes one back, Esc drops it); Enter's reach the model
// at the turn's next tool call, Tab's when the turn ends; Shift+Tab cycles
// the approval mode, shown in the status line, and the change reaches the
// next approval and the tools offered.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { CLI, tempTree } from "../helpers.ts";
import { scriptedOllama } from "../agent/harness.ts";
import { Tmux } from "./tmux.ts";

const ollama = scriptedOllama();
const statusLine = (s: string) => s.split("\n").find((l) => l.startsWith("ollama/test-model")) ?? "";
const idle = (s: string) => /\/help · Ctrl-C twice quits/.test(statusLine(s));

function startRt(t: import("node:test").TestContext, root: string, approval: string): Tmux {
  const term = new Tmux(100, 30);
  const env = {
    ...process.env,
    ...ollama.env({ XDG_STATE_HOME: tempTree({}, "rt-state-"), XDG_CACHE_HOME: tempTree({}, "rt-cache-") }),
    RT_ROOT: undefined,
    NO_COLOR: undefined,
    TERM: "xterm-256color",
  };
  term.start(
    t,
    `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} chat --model ollama/test-model --approval ${approval}; sleep 600`,
    env as NodeJS.ProcessEnv,
    root,
  );
  return term;
}

/** The last message of a recorded request, and the names of the tools it offered. */
function request(i: number): { last: string; all: string; tools: string[] } {
  const body = ollama.server.completions[i].body as {
    messages: Array<{ content: unknown }>;
    tools?: Array<{ function: { name: string } }>;
  };
  return {
    last: JSON.stringify(body.messages.at(-1)?.content),
    all: JSON.stringify(body.messages),
    tools: (body.tools ?? []).map((x) => x.function.name),
  };
}

test("Enter during a tool call: the message waits, then rides on the request after the call's result", async (t) => {
  const root = tempTree({ "a.txt": "a\n" });
  // The tool call runs until the test has typed what it types during it (the file "go"), however long that takes.
  const wait = "until [ -e go ]; do sleep 0.05; done";
  ollama.server.script(reply.toolCall("bash", { command: wait }), reply.text("STEERED-ANSWER"));
  const term = startRt(t, root, "auto");
  await term.waitFor(idle);
  term.type("start the slow one");
  term.keys("Enter");
  await term.waitFor(/Running bash: until/);
  // A command typed during the turn would wait for its end, whatever the key: the hint says so.
  term.type("/cost");
  await term.waitFor(/Enter: after the turn \(a command/);
  term.keys("C-u");
  await term.waitFor((s) => !/Enter: after the turn/.test(s));
  term.type("STEER-ME");
  // While a turn runs and something is typed, the line under the input says what Enter and Tab do.
  await term.waitFor(/Enter: at the next tool call · Tab: after the turn/);
  // The rest and the Enter in one chunk, as keys typed faster than the UI reads them arrive.
  term.type(" use tabs\r");
  const waiting = await term.waitFor(/⏎ queued \(at the next tool call\): STEER-ME use tabs/);
  assert.doesNotMatch(waiting, /STEERED-ANSWER|⎿/, "the call is still running");
  assert.equal(ollama.server.completions.length, 1);
  fs.writeFileSync(path.join(root, "go"), "");
  const done = await term.waitFor((s) => s.includes("STEERED-ANSWER") && idle(s));
  assert.doesNotMatch(done, /queued/);
  // Shown where the model got it: after the call's result, before the answer.
  assert.match(done, /● bash: until[\s\S]*⎿[\s\S]*❯ STEER-ME use tabs[\s\S]*STEERED-ANSWER/);
  // Two requests, not three: the message rode on the request that carried the call's result.
  assert.equal(ollama.server.completions.length, 2);
  const body = ollama.server.completions[1].body as {
    messages: Array<{ role: string; content: string; tool_calls?: unknown[]; tool_name?: string }>;
  };
  const callAt = body.messages.findIndex((m) => m.role === "assistant" && m.tool_calls?.length);
  assert.deepEqual(
    body.messages.slice(callAt + 1).map((m) => [m.role, m.tool_name ?? m.content]),
    [
      ["tool", "bash"],
      ["user", "STEER-ME use tabs"],
    ],
  );
});

test("Tab during a tool call queues the message for after the turn (↑ takes one back, Esc drops it)", async (t) => {
  const root = tempTree({ "a.txt": "a\n" });
  const wait = "until [ -e go ]; do sleep 0.05; done";
  ollama.server.script(
    reply.toolCall("bash", { command: wait }),
    reply.text("FIRST-DONE"),
    reply.text("QUEUED-ANSWER"),
  );
  const term = startRt(t, root, "auto");
  await term.waitFor(idle);
  term.type("start the slow one");
  term.keys("Enter");
  await term.waitFor(/Running bash: until/);
  term.type("DROP-ME");
  term.keys("Enter");
  await term.waitFor(/⏎ queued \(at the next tool call\): DROP-ME/);
  // ↑ on the empty input: the last queued prompt comes back to edit; Esc drops it, the turn goes on.
  term.keys("Up");
  await term.waitFor((s) => /^❯ DROP-ME/m.test(s) && !/queued .*DROP-ME/.test(s));
  term.keys("Escape");
  await term.waitFor(/queued prompt removed/);
  // The text and its Tab in one chunk (keys typed faster than the UI reads them).
  term.type("QUEUED-PROMPT follow up\t");
  const waiting = await term.waitFor(/⏎ queued \(after the turn\): QUEUED-PROMPT follow up/);
  assert.doesNotMatch(waiting, /FIRST-DONE|⎿/, "the turn is still running");
  fs.writeFileSync(path.join(root, "go"), "");
  const done = await term.waitFor((s) => s.includes("QUEUED-ANSWER") && idle(s));
  assert.doesNotMatch(done, /queued/);
  assert.equal(ollama.server.completions.length, 3);
  assert.doesNotMatch(request(1).all, /QUEUED-PROMPT/, "not given to the running turn");
  const third = request(2);
  assert.match(third.last, /QUEUED-PROMPT follow up/);
  assert.match(third.all, /FIRST-DONE[\s\S]*QUEUED-PROMPT/, "sent after the turn's answer");
  assert.doesNotMatch(third.all, /DROP-ME/);
});

test("Shift+Tab cycles ask → auto-edit → plan → ask in the status line; the next edit is not asked, a command still is, plan mode offers no tool that changes anything", async (t) => {
  const root = tempTree({ "calc.py": "def add(a, b):\n    return a - b\n" });
  ollama.server.script(
    reply.toolCall("edit", { path: "calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("EDIT-DONE"),
    reply.toolCall("bash", { command: "echo hi" }),
    reply.text("BASH-DONE"),
    reply.text("PLAN-ANSWER"),
  );
  const term = startRt(t, root, "ask");
  await term.waitFor(idle);
  assert.match(statusLine(term.screen()), /^ollama\/test-model · ask ·/);
  term.keys("BTab");
  await term.waitFor((s) => /^ollama\/test-model · auto-edit ·/.test(statusLine(s)));
  term.type("fix the sign");
  term.keys("Enter");
  const edited = await term.waitFor((s) => s.includes("EDIT-DONE") && idle(s));
  assert.doesNotMatch(edited, /rt wants to edit/);
  assert.equal(fs.readFileSync(path.join(root, "calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
  term.type("say hi");
  term.keys("Enter");
  // While the question waits, the status line says so (not "Thinking…").
  const asking = await term.waitFor(/rt wants to run: bash: echo hi/);
  assert.match(statusLine(asking), /Waiting for your approval… \d+s/);
  term.keys("y");
  await term.waitFor((s) => s.includes("BASH-DONE") && idle(s));

  term.keys("BTab");
  await term.waitFor((s) => /^ollama\/test-model · plan ·/.test(statusLine(s)));
  term.type("plan the rest");
  term.keys("Enter");
  await term.waitFor((s) => s.includes("PLAN-ANSWER") && idle(s));
  const offered = request(4).tools;
  assert.ok(offered.includes("read") || offered.includes("grep"), offered.join(","));
  for (const name of ["edit", "bash", "write"]) assert.ok(!offered.includes(name), `plan mode offers ${name}`);
  term.keys("BTab");
  await term.waitFor((s) => /^ollama\/test-model · ask ·/.test(statusLine(s)));
});
