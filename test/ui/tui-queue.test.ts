// Messages typed while a turn runs, in the full-screen UI's controller (no
// terminal; the real agent set up as `rt chat` sets it up, the model played by
// the scripted server over HTTP): Enter's go to the running turn at its next
// tool call (tui.queued_prompts, the default), Tab's after the turn; one meant
// for the next tool call is sent after the turn when no tool call comes; a
// command always waits for the turn's end. Also the `tui` section of the
// configuration, the hint under the input and the keys /help lists.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { tempTree } from "../helpers.ts";
import { TuiController, keysHelp } from "../../src/ui/tui/controller.ts";
import { loadTuiSettings, tuiSettingsOf } from "../../src/ui/tui/settings.ts";
import { ConfigError } from "../../src/base/config.ts";
import { composeScreen } from "../../src/ui/tui/screen.ts";
import { Editor } from "../../src/ui/tui/editor.ts";
import { bare } from "../../src/ui/tui/palette.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";

let server: LlmServer;
before(async () => {
  server = await startLlmServer({ models: [{ name: "test-model", contextLength: 32768 }] });
});
after(() => server.close());
beforeEach(() => server.reset());

/** A controller on `root` as `rt chat --model ollama/test-model --approval auto` makes it, started. */
async function controllerIn(root: string, config?: object): Promise<TuiController> {
  const configHome = tempTree(config ? { "rt/config.json": JSON.stringify(config) } : {}, "rt-config-");
  const ws = createWorkspace({
    root,
    env: {
      ...process.env,
      RT_ROOT: undefined,
      OLLAMA_HOST: server.url,
      OPENAI_API_KEY: undefined,
      ANTHROPIC_API_KEY: undefined,
      XDG_CONFIG_HOME: configHome,
      XDG_STATE_HOME: tempTree({}, "rt-state-"),
      XDG_CACHE_HOME: tempTree({}, "rt-cache-"),
    },
  });
  const c = new TuiController({ ws, flags: { model: "ollama/test-model", approval: "auto" }, customCommands: [] });
  await c.start();
  return c;
}

/** Waits until `f` holds, the controller's changes waking the check (a bound for a loaded machine, not a pause). */
async function until(c: TuiController, f: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!f()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out; conversation: ${JSON.stringify(c.conv.entries)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const shape = (c: TuiController) =>
  c.conv.entries
    .filter((e) => e.kind !== "notice")
    .map((e) => (e.kind === "tool" ? `tool ${e.state}` : `${e.kind} ${"text" in e ? e.text : ""}`));

test("Enter during a tool call joins the turn at the call's end; a command typed then waits", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  server.script(
    reply.toolCall("bash", { command: "until [ -e go ]; do sleep 0.05; done" }),
    reply.text("STEERED"),
    reply.text("AFTER-CLEAR"),
  );
  const c = await controllerIn(root);
  c.submit("start");
  await until(c, () => c.conv.entries.some((e) => e.kind === "tool" && e.state === "running"));
  c.submit("STEER-ME");
  c.submit("/cost");
  assert.deepEqual(c.queued, [
    { text: "STEER-ME", when: "next_tool_call" },
    { text: "/cost", when: "after_turn" },
  ]);
  fs.writeFileSync(path.join(root, "go"), "");
  await until(c, () => !c.isRunning && c.queued.length === 0);
  await c.idle();
  assert.equal(server.completions.length, 2);
  const sent = server.completions[1].body.messages as Array<{ role: string; content: string }>;
  assert.deepEqual(sent.at(-1), { role: "user", content: "STEER-ME" });
  assert.equal(sent.at(-2)?.role, "tool");
  assert.deepEqual(shape(c).slice(0, 4), ["user start", "tool done", "user STEER-ME", "answer STEERED"]);
  // The command ran after the turn, as a command (no model request).
  await until(c, () => c.conv.entries.some((e) => e.kind === "notice" && /model request/.test(e.text)));
  assert.equal(server.completions.length, 2);
  c.close();
});

test("without a tool call, Enter's message is the next prompt; Tab's waits for the end whatever comes", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  server.script(
    { text: "NO-TOOLS", delayMs: 300 },
    reply.text("LATE-ANSWER"),
    reply.toolCall("bash", { command: "until [ -e go ]; do sleep 0.05; done" }),
    reply.text("FIRST-DONE"),
    reply.text("TAB-ANSWER"),
  );
  const c = await controllerIn(root);
  c.submit("answer only");
  c.submit("LATE-ONE");
  assert.deepEqual(c.queued, [{ text: "LATE-ONE", when: "next_tool_call" }]);
  await until(c, () => c.conv.entries.some((e) => e.kind === "answer" && e.text === "LATE-ANSWER") && !c.isRunning);
  assert.deepEqual(shape(c), ["user answer only", "answer NO-TOOLS", "user LATE-ONE", "answer LATE-ANSWER"]);
  assert.deepEqual((server.completions[1].body.messages as Array<{ content: string }>).at(-1)?.content, "LATE-ONE");

  c.submit("slow one");
  await until(c, () => c.conv.entries.some((e) => e.kind === "tool" && e.state === "running"));
  c.submit("TAB-ONE", "after_turn");
  fs.writeFileSync(path.join(root, "go"), "");
  await until(c, () => c.conv.entries.some((e) => e.kind === "answer" && e.text === "TAB-ANSWER") && !c.isRunning);
  assert.equal(server.completions.length, 5);
  assert.doesNotMatch(JSON.stringify(server.completions[3].body.messages), /TAB-ONE/, "not given to the turn");
  assert.match(JSON.stringify(server.completions[4].body.messages), /FIRST-DONE.*TAB-ONE/);
  c.close();
});

test("tui.queued_prompts after_turn swaps Enter and Tab; a wrong value is refused, naming the key", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  server.script(
    reply.toolCall("bash", { command: "until [ -e go ]; do sleep 0.05; done" }),
    reply.text("FIRST-DONE"),
    reply.text("QUEUED-ANSWER"),
  );
  const c = await controllerIn(root, { tui: { queued_prompts: "after_turn" } });
  assert.equal(c.tuiSettings.queuedPrompts, "after_turn");
  c.submit("slow one");
  await until(c, () => c.conv.entries.some((e) => e.kind === "tool" && e.state === "running"));
  c.submit("ENTER-ONE");
  c.submit("TAB-STEER", "next_tool_call");
  assert.deepEqual(c.queued, [
    { text: "ENTER-ONE", when: "after_turn" },
    { text: "TAB-STEER", when: "next_tool_call" },
  ]);
  fs.writeFileSync(path.join(root, "go"), "");
  await until(c, () => c.conv.entries.some((e) => e.kind === "answer" && e.text === "QUEUED-ANSWER") && !c.isRunning);
  const second = server.completions[1].body.messages as Array<{ role: string; content: string }>;
  assert.deepEqual(second.at(-1), { role: "user", content: "TAB-STEER" });
  assert.doesNotMatch(JSON.stringify(second), /ENTER-ONE/);
  assert.equal((server.completions[2].body.messages as Array<{ content: string }>).at(-1)?.content, "ENTER-ONE");
  // /help lists the keys as this configuration has them.
  c.submit("/help");
  await until(c, () => c.conv.entries.some((e) => e.kind === "notice" && /^Commands:/.test(e.text)));
  const help = [...c.conv.entries].reverse().find((e) => e.kind === "notice");
  assert.match(
    help?.kind === "notice" ? help.text : "",
    /Enter sends a message after the turn, Tab at the next tool call/,
  );
  assert.match(keysHelp("after_turn"), /Enter sends a message after the turn, Tab at the next tool call/);
  assert.match(keysHelp(), /Enter sends a message at the next tool call, Tab after the turn/);
  c.close();

  for (const bad of [{ queued_prompts: "later" }, { queued_prompts: 1 }, "after_turn"]) {
    await assert.rejects(controllerIn(root, { tui: bad }), (e: Error) => {
      // Refused by the configuration's schema, as every other key is: the file, the key and what it takes.
      assert.ok(e instanceof ConfigError, String(e));
      assert.match(e.message, /config\.json: tui(\.queued_prompts)?: /);
      if (typeof bad === "object") assert.match(e.message, /"next_tool_call".*"after_turn"/);
      return true;
    });
  }
  assert.deepEqual(tuiSettingsOf({}), { queuedPrompts: "next_tool_call" });
  assert.deepEqual(loadTuiSettings(createWorkspace({ root, env: { XDG_CONFIG_HOME: tempTree({}) } })), {
    queuedPrompts: "next_tool_call",
  });
});

test("the screen: each waiting message says when it goes; a hint says what Enter and Tab do", () => {
  const editor = new Editor();
  editor.insert("half typed");
  const screen = composeScreen({
    width: 80,
    height: 12,
    conversation: [],
    scrollBack: 0,
    todos: [],
    editor,
    status: "status",
    palette: bare,
    queued: [
      { text: "one\nline", note: "queued (at the next tool call)" },
      { text: "two", note: "queued (after the turn)" },
    ],
    hint: "Enter: at the next tool call · Tab: after the turn",
  });
  assert.deepEqual(screen.lines.slice(-5), [
    "❯ half typed ",
    "  ⏎ queued (at the next tool call): one line",
    "  ⏎ queued (after the turn): two",
    "  Enter: at the next tool call · Tab: after the turn",
    "status",
  ]);
});
