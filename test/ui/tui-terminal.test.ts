// The full-screen UI in a real terminal (tmux), driven by keys and read from
// the screen, against the scripted model server reached as Ollama (the model
// is the only stand-in). A few screens are kept as fixtures
// (test/fixtures/tui/) and their key lines checked.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { reply } from "../llm-server.ts";
import { tempTree, CLI, REPO } from "../helpers.ts";
import { requestText, scriptedOllama } from "../agent/harness.ts";
import { Tmux, checkFixture } from "./tmux.ts";

const ollama = scriptedOllama();
const FIXTURES = path.join(REPO, "test", "fixtures", "tui");

/** rt chat in a fresh 100x30 tmux; a marker line before it, and after it how it exited. */
function startRt(
  t: import("node:test").TestContext,
  root: string,
  args: string[] = [],
  size: [number, number] = [100, 30],
  rtArgs = ["chat", "--model", "ollama/test-model", ...args],
  extraEnv: Record<string, string> = {},
) {
  const term = new Tmux(size[0], size[1]);
  const stateHome = extraEnv.XDG_STATE_HOME ?? tempTree({}, "rt-state-");
  const env = {
    ...process.env,
    ...ollama.env({ XDG_STATE_HOME: stateHome, ...extraEnv }),
    RT_ROOT: undefined,
    NO_COLOR: undefined,
    TERM: "xterm-256color",
  };
  const cmd = `printf 'BEFORE-RT\\n'; ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} ${rtArgs.join(" ")}; echo "[rt exited $?]"; sleep 600`;
  term.start(t, cmd, env as NodeJS.ProcessEnv, root);
  return { term, stateHome };
}

const statusLine = (s: string) => s.split("\n").find((l) => l.startsWith("ollama/test-model")) ?? "";

test("a prompt and its streamed Markdown answer; an edit approved (its change coloured), a command denied; Ctrl-C twice quits and the terminal is restored", async (t) => {
  const root = tempTree({ "calc.py": "def add(a, b):\n    return a - b\n" });
  const words =
    "The **answer** streams word by word:\n\n- first point\n- second point\n\n```python\nprint('hi')\n```\n\nLAST-WORD";
  ollama.server.script(
    reply.text(words, { chunkDelayMs: 120 }),
    reply.toolCall("edit", { path: "calc.py", old_string: "return a - b", new_string: "return a + b" }),
    reply.text("Fixed the sign."),
    reply.toolCall("bash", { command: "rm -rf build" }),
    reply.text("I did not run it."),
  );
  const { term } = startRt(t, root);
  await term.waitFor(/\/help · Ctrl-C twice quits/);
  assert.equal(term.format("#{alternate_on}"), "1");
  assert.match(statusLine(term.screen()), /^ollama\/test-model · ask · 0 in \/ 0 out · context \d+%/);

  term.type("explain the answer");
  term.keys("Enter");
  // Mid-stream: the first words are on the screen, the last not yet, and the status line says what is going on.
  const mid = await term.waitFor(/answer streams/);
  assert.doesNotMatch(mid, /LAST-WORD/);
  assert.match(mid, /(Writing|Thinking)… \d+s · Esc interrupts/);
  const answered = await term.waitFor(/LAST-WORD/);
  assert.match(answered, /^❯ explain the answer$/m);
  // Markdown rendered: the bold markers and the list's dashes are gone, the code block's fence too.
  assert.match(answered, /The answer streams word by word:/);
  assert.match(answered, /^\s+\* first point$/m);
  assert.match(answered, /^\s+print\('hi'\)$/m);
  assert.doesNotMatch(answered, /```|\*\*answer\*\*/);
  await term.waitFor(
    (s) => /[\d.]+k? in \/ [\d.]+k? out/.test(statusLine(s)) && !/· 0 in \/ 0 out/.test(statusLine(s)),
  );

  term.type("fix the sign");
  term.keys("Enter");
  const asked = await term.waitFor(/rt wants to edit: edit calc\.py/);
  assert.match(asked, /^\s+- return a - b$/m);
  assert.match(asked, /^\s+\+ return a \+ b$/m);
  assert.match(asked, /y yes {3}n no \(then why\) {3}a always \(this session\)/);
  term.keys("y");
  // The turn ends once the language server's check of the edit is done (it runs after the edit answered).
  const edited = await term.waitFor((s) => /Fixed the sign\./.test(s) && /\/help · Ctrl-C twice quits/.test(s));
  assert.match(edited, /● edit calc\.py\n\s+⎿ ✓ Edited calc\.py:2-2\n\s+- return a - b\n\s+\+ return a \+ b/);
  assert.equal(fs.readFileSync(path.join(root, "calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");
  const coloured = term.screen(true);
  assert.match(coloured, /\x1b\[31m- return a - b/, "removed lines are red");
  assert.match(coloured, /\x1b\[32m\+ return a \+ b/, "added lines are green");
  assert.deepEqual(
    checkFixture(FIXTURES, "edit-approved", edited, [
      /^● edit/,
      /⎿ ✓ Edited/,
      /^\s+- return/,
      /^\s+\+ return/,
      /^Fixed the sign/,
      /^ollama\/test-model/,
    ]),
    [],
  );

  term.type("clean the build");
  term.keys("Enter");
  await term.waitFor(/rt wants to run: bash: rm -rf build/);
  // n, then why: the reason goes to the model with the denial.
  term.keys("n");
  await term.waitFor(/No, because \(Enter sends it to the model, empty for no reason\):/);
  term.type("keep the build");
  term.keys("Enter");
  const denied = await term.waitFor(/I did not run it\./);
  assert.match(denied, /● bash: rm -rf build\n\s+⎿ ⊘ the user denied bash: rm -rf build: it was not run/);
  assert.match(
    requestText(ollama.server.completions[4].body),
    /the user denied bash: rm -rf build: it was not run\. The user said why: \\?"keep the build\\?"/,
  );

  // Ctrl-C once at the empty prompt only warns; twice quits, and the shell's screen comes back.
  term.keys("C-c");
  await term.waitFor(/Ctrl-C again to quit/);
  term.keys("C-c");
  const after = await term.waitFor(/\[rt exited 0\]/);
  assert.match(after, /BEFORE-RT/);
  assert.match(after, /session \S+ saved; rt chat --continue resumes it/);
  assert.doesNotMatch(after, /────|❯/, "nothing of the UI is left on the shell's screen");
  assert.equal(term.format("#{alternate_on} #{mouse_any_flag} #{cursor_flag}"), "0 0 1");
});

test("Esc interrupts a long bash; multi-line input with \\ and Enter; /model, /compact, completion of /commands; resize to 80x24; history across runs", async (t) => {
  const root = tempTree({ "notes.md": "# notes\n" });
  ollama.server.script(
    reply.toolCall("bash", { command: "sleep 30" }),
    reply.text("Two lines received."),
    reply.text("The summary of the conversation."),
  );
  const { term, stateHome } = startRt(t, root, ["--approval", "auto"]);
  await term.waitFor(/\/help · Ctrl-C twice quits/);

  term.type("wait a while");
  term.keys("Enter");
  const running = await term.waitFor(/Running bash: sleep 30… \d+s · Esc interrupts/);
  assert.match(running, /● bash: sleep 30/);
  const started = Date.now();
  term.keys("Escape");
  const stopped = await term.waitFor(/rt: interrupted/);
  assert.ok(Date.now() - started < 10_000, "Esc stopped the command well before its 30 s");
  assert.match(stopped, /⎿ ✗/);
  await term.waitFor((s) => /\/help · Ctrl-C twice quits/.test(statusLine(s)));

  // \ then Enter: a new line in the prompt; Enter alone sends both lines.
  term.type("first line\\");
  term.keys("Enter");
  term.type("second line");
  const twoLines = await term.waitFor(/^ {2}second line/m);
  assert.match(twoLines, /^❯ first line$/m);
  term.keys("Enter");
  await term.waitFor(/Two lines received\./);
  assert.match(requestText(ollama.server.completions[1].body), /first line\nsecond line/);

  // Completion: /mo and Tab gives /model; Enter runs it.
  term.type("/mo");
  const listed = await term.waitFor(/\/model {2}show the model/);
  assert.match(listed, /^❯ \/mo/m);
  term.keys("Tab");
  await term.waitFor(/^❯ \/model\s*$/m);
  term.keys("Enter");
  await term.waitFor(/\[rt\] ollama\/test-model \(protocol: tools\)/);
  term.type("/model ollama/test-model");
  term.keys("Enter");
  await term.waitFor(/\[rt\] model: ollama\/test-model/);

  term.type("/compact");
  term.keys("Enter");
  const compacted = await term.waitFor(/\[rt\] compacted: .* older history summarized/);
  assert.match(compacted, /\[rt\] compacting the context \(manual\)/);

  // A smaller terminal: everything is drawn again within 80 columns and 24 rows.
  term.resize(80, 24);
  // (tmux reflows the old 100-column frame first: its rule would become a row of 80 and one of 20.)
  const small = await term.waitFor(
    (s) => s.split("\n").some((l) => /^─{80}$/.test(l)) && !s.split("\n").some((l) => /^─{1,79}$/.test(l)),
  );
  const rows = small.replace(/\n$/, "").split("\n");
  assert.equal(rows.length, 24);
  assert.ok(
    rows.every((l) => [...l].length <= 80),
    "no line wider than the terminal",
  );
  assert.match(statusLine(small), /^ollama\/test-model · auto · [\d.]+k? in \/ [\d.]+k? out · context \d+% +\/help$/);
  assert.match(small, /compacted:/);
  assert.doesNotMatch(small, /^· Ctrl-C/m, "no piece of the old frame is left");
  assert.deepEqual(
    checkFixture(FIXTURES, "resized-80x24", small, [/^─{80}$/, /compacted:/, /^ollama\/test-model/]),
    [],
  );

  // Ctrl-D at the empty prompt quits; a new run recalls the earlier prompts with ↑ (kept in the state dir, not the repository).
  term.keys("C-d");
  await term.waitFor(/\[rt exited 0\]/);
  const historyFiles = fs.readdirSync(path.join(stateHome, "rt", "prompts"));
  assert.equal(historyFiles.length, 1);
  assert.match(
    fs.readFileSync(path.join(stateHome, "rt", "prompts", historyFiles[0]), "utf8"),
    /"first line\\nsecond line"/,
  );
  assert.ok(!fs.readdirSync(path.join(root, ".rt")).some((f) => /prompt|history/.test(f)));
  const again = startRt(t, root, [], [100, 30], undefined, { XDG_STATE_HOME: stateHome }).term;
  await again.waitFor(/\/help · Ctrl-C twice quits/);
  again.keys("Up");
  await again.waitFor(/^❯ \/compact\s*$/m);
  again.keys("Up", "Up", "Up");
  const recalled = await again.waitFor(/^❯ first line\n {2}second line/m);
  assert.doesNotMatch(recalled, /Two lines received/, "a recalled prompt is not sent until Enter");
});

test("PageUp scrolls back through a long answer and the view stays there while it grows; End follows again", async (t) => {
  const root = tempTree({});
  const pieces = Array.from({ length: 80 }, (_, i) => `line-${i + 1}\n\n`);
  ollama.server.script(reply.text(pieces, { chunkDelayMs: 40 }));
  const { term } = startRt(t, root, [], [100, 24]);
  await term.waitFor(/\/help · Ctrl-C twice quits/);
  term.type("long please");
  term.keys("Enter");
  // Scrolled up while the answer streams: the lines on screen stay put as more arrive below.
  await term.waitFor(/line-25\b/);
  term.keys("PageUp");
  const up = await term.waitFor(/more lines? below/);
  const firstShown = (s: string) => s.split("\n").find((l) => /^line-\d+$/.test(l));
  const top = firstShown(up);
  const ended = await term.waitFor((s) => /\/help · Ctrl-C twice quits/.test(statusLine(s)));
  assert.equal(
    firstShown(ended),
    top,
    `the view moved while the answer grew; after PageUp:\n${up}\nat the end:\n${ended}`,
  );
  assert.doesNotMatch(ended, /line-80/, ended);
  term.keys("End");
  const back = await term.waitFor((s) => /line-80/.test(s) && !/more lines? below/.test(s));
  assert.match(back, /line-80/);
  // The mouse wheel (SGR mouse reports, as a terminal sends them): up 3 lines a notch, down again.
  term.type("\x1b[<64;10;10M");
  term.type("\x1b[<64;10;10M");
  await term.waitFor(/↓ 6 more lines below/);
  term.type("\x1b[<65;10;10M");
  await term.waitFor(/↓ 3 more lines below/);
});

test("plain `rt` on a terminal opens the full-screen UI (keys typed early are kept); SIGTERM restores the terminal too; `rt chat --plain` keeps the line REPL", async (t) => {
  const root = tempTree({});
  const config = tempTree({ "rt/config.json": JSON.stringify({ model: "ollama/test-model" }) }, "rt-config-");
  ollama.server.script(reply.text("full-screen answer"), reply.text("plain answer"));
  const { term } = startRt(t, root, [], [100, 30], [], { XDG_CONFIG_HOME: config });
  // Typed before the UI is up (the terminal still in line mode): sent once it is.
  term.type("early question");
  term.keys("Enter");
  const early = await term.waitFor(/full-screen answer/);
  assert.match(early, /^❯ early question$/m);
  await term.waitFor(/\/help · Ctrl-C twice quits/);
  assert.equal(term.format("#{alternate_on}"), "1");
  term.type("/quit");
  term.keys("Enter");
  await term.waitFor(/\[rt exited 0\]/);
  assert.equal(term.format("#{alternate_on}"), "0");

  // Killed from outside (SIGTERM): the terminal is restored all the same.
  const killed = startRt(t, root).term;
  await killed.waitFor(/\/help · Ctrl-C twice quits/);
  assert.equal(killed.format("#{alternate_on} #{mouse_any_flag}"), "1 1");
  const shell = killed.format("#{pane_pid}");
  const rtPid = execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" }).trim().split(/\s+/)[0];
  process.kill(Number(rtPid), "SIGTERM");
  await killed.waitFor(/\[rt exited 143\]/);
  assert.equal(killed.format("#{alternate_on} #{mouse_any_flag} #{cursor_flag}"), "0 0 1");

  const plain = startRt(t, root, ["--plain"]).term;
  await plain.waitFor(/rt chat · ollama\/test-model · session/);
  assert.equal(plain.format("#{alternate_on}"), "0");
  plain.type("hello");
  plain.keys("Enter");
  await plain.waitFor(/plain answer/);
  plain.keys("C-d");
  await plain.waitFor(/\[rt exited 0\]/);
});

test("in a folder whose .rt/config.json needs trust, the question comes on the shell's screen before the UI opens; no keeps the keys ignored; CI=1 does not stop the UI drawing", async (t) => {
  const root = tempTree({
    "README.md": "# a stranger's project\n",
    ".rt/config.json": JSON.stringify({ agent: { approval: "auto" } }),
  });
  fs.mkdirSync(path.join(root, ".git"));
  const home = tempTree({}, "rt-home-");
  ollama.server.script(reply.toolCall("bash", { command: "touch ran" }), reply.text("not run"));
  // CI=1 as many developers (and CI jobs) have it: the UI draws all the same.
  const { term } = startRt(t, root, [], [100, 30], undefined, { HOME: home, CI: "1" });
  const asked = await term.waitFor(/\[y\/N\]/);
  assert.match(asked, /agent\.approval = "auto"/);
  assert.equal(term.format("#{alternate_on}"), "0", "the question is asked before the full-screen UI takes the screen");
  term.keys("n", "Enter");
  await term.waitFor(/\/help · Ctrl-C twice quits/);
  assert.equal(term.format("#{alternate_on}"), "1");
  // The repository's "auto" is ignored: the user's own mode (ask) is in force.
  assert.match(statusLine(term.screen()), /^ollama\/test-model · ask ·/);
  term.type("touch a file");
  term.keys("Enter");
  await term.waitFor(/rt wants to run: bash: touch ran/);
  term.keys("n");
  await term.waitFor(/No, because/);
  term.keys("Enter");
  await term.waitFor(/not run/);
  assert.equal(fs.existsSync(path.join(root, "ran")), false);
  assert.equal(fs.existsSync(path.join(ollama.configHome, "rt", "trusted.json")), false, "nothing recorded as trusted");
});

test("todos appear and update in their panel; ask_user answered with the arrow keys; a subagent nested under its task call; a plan accepted with auto-edit", async (t) => {
  const root = tempTree({ "src/a.py": "def a():\n    return 1\n" });
  const question = {
    questions: [
      {
        question: "Which value should a() return?",
        header: "Value",
        options: [
          { label: "Two", description: "return 2" },
          { label: "Three", description: "return 3" },
        ],
        multiSelect: false,
      },
    ],
  };
  ollama.server.script(
    reply.toolCall("todo_write", {
      todos: [
        { content: "Ask the user", activeForm: "Asking the user", status: "in_progress" },
        { content: "Find a()", activeForm: "Finding a()", status: "pending" },
      ],
    }),
    reply.toolCall("ask_user", question),
    reply.toolCall("todo_write", {
      todos: [
        { content: "Ask the user", activeForm: "Asking the user", status: "completed" },
        { content: "Find a()", activeForm: "Finding a()", status: "in_progress" },
      ],
    }),
    {
      toolCalls: [
        {
          id: "call_t1",
          name: "task",
          arguments: { description: "find a", prompt: "Where is a defined?", subagent_type: "Explore" },
        },
      ],
    },
    reply.toolCall("grep", { pattern: "def a", path: "src" }),
    reply.text("a is at src/a.py:1"),
    reply.toolCall("exit_plan_mode", { plan: "1. Make **a()** return 3 (src/a.py:2).\n2. Nothing else." }),
    reply.toolCall("edit", { path: "src/a.py", old_string: "return 1", new_string: "return 3" }),
    reply.text("Done: a() returns 3."),
  );
  const { term } = startRt(t, root, ["--approval", "plan"], [100, 34]);
  await term.waitFor(/\/help · Ctrl-C twice quits/);
  assert.match(statusLine(term.screen()), /^ollama\/test-model · plan · /);
  term.type("change a");
  term.keys("Enter");

  // The question and the todo panel on one screen: Ink may draw the question a frame before the panel.
  const todos = /─ Todos ─+\n\[→\] Asking the user\n\[ \] Find a\(\)\n/;
  const asked = await term.waitFor((s) => /Value: Which value should a\(\) return\?/.test(s) && todos.test(s));
  assert.match(asked, todos);
  assert.match(asked, /❯ 1\. Two — return 2\n {2}2\. Three — return 3\n {2}3\. Other — type your own answer/);
  term.keys("Down");
  await term.waitFor(/❯ 2\. Three — return 3/);
  term.keys("Enter");

  const planned = await term.waitFor(/The agent's plan:/);
  assert.match(planned, /\[✓\] Ask the user\n\[→\] Finding a\(\)/, "the todo panel follows the new list");
  assert.match(planned, /^ +1\. Make a\(\) return 3 \(src\/a\.py:2\)\.$/m, "the plan rendered as Markdown");
  assert.doesNotMatch(
    planned,
    /● todo_write[^\n]*\n {2}⎿/,
    "the todo list is in its panel: todo_write's call is one line, its result not repeated under it",
  );
  assert.match(planned, /❯ 1\. Yes, and approve edits automatically \(auto-edit\)/);
  // The subagent's run, folded under its task call once done.
  assert.match(
    planned,
    /● task · Explore: find a\n {2}⎿ done · 1 tool call · [\d,]+ in, [\d,]+ out \(Ctrl-O shows them\)/,
  );
  assert.deepEqual(
    checkFixture(FIXTURES, "todos-plan", planned, [
      /^\[✓\] Ask the user/,
      /^\[→\] Finding a/,
      /^● task · Explore/,
      /⎿ done · 1 tool call/,
      /^The agent's plan:/,
      /^❯ 1\. Yes, and approve edits/,
    ]),
    [],
  );
  term.keys("Enter");

  const done = await term.waitFor(/Done: a\(\) returns 3\./);
  assert.match(statusLine(done), /^ollama\/test-model · auto-edit · /, "the accepted plan left plan mode");
  assert.match(done, /● edit src\/a\.py\n {2}⎿ ✓ Edited src\/a\.py:2-2/);
  assert.equal(fs.readFileSync(path.join(root, "src/a.py"), "utf8"), "def a():\n    return 3\n");
  assert.match(requestText(ollama.server.completions[2].body), /"Which value should a\(\) return\?" → "Three"/);
  // Ctrl-O: the subagent's own calls, nested under the task call.
  term.keys("C-o");
  const expanded = await term.waitFor(/│ ● grep "def a" src/);
  assert.match(expanded, /● task · Explore: find a\n {2}│ ● grep "def a" src\n {2}│ {3}⎿ src\/a\.py:1: def a\(\):/);
  term.type("/todos");
  term.keys("Enter");
  // The item in progress as the panel shows it: by its activeForm.
  await term.waitFor(/\[rt\] \[✓\] Ask the user\n\[→\] Finding a\(\)/);
});

test("/cost, /approval, /sessions, /export, /clear and /resume; @path completion; Shift+Enter and Alt+Enter; a bracketed paste keeps its lines unsent", async (t) => {
  const root = tempTree({ "notes.md": "# notes\n", "src/app.ts": "" });
  ollama.server.script(
    reply.text("first answer", { usage: { input: 1200, output: 34 } }),
    reply.text("second answer"),
    reply.text("third answer"),
  );
  const { term } = startRt(t, root);
  await term.waitFor(/\/help · Ctrl-C twice quits/);
  term.type("remember FIRST-PROMPT");
  term.keys("Enter");
  await term.waitFor(/first answer/);

  term.type("/cost");
  term.keys("Enter");
  await term.waitFor(/\[rt\] tokens: 1,200 in, 34 out · 1 model request · no prices configured for this model/);

  term.type("/approval auto-edit");
  term.keys("Enter");
  await term.waitFor(/\[rt\] approval mode: auto-edit/);
  assert.match(statusLine(term.screen()), /^ollama\/test-model · auto-edit · /);

  term.type("/sessions");
  term.keys("Enter");
  const listed = await term.waitFor(/\* \S+ .* 1 prompt, [\s\S]*FIRST-PROMPT/);
  const id = /\* (\S+) /.exec(listed)![1];

  term.type("/export");
  term.keys("Enter");
  await term.waitFor(/\[rt\] created .*session-/);
  const exported = fs.readdirSync(path.join(root, ".rt", "out"));
  assert.deepEqual(exported, [`session-${id}.md`]);
  assert.match(
    fs.readFileSync(path.join(root, ".rt", "out", exported[0]), "utf8"),
    /remember FIRST-PROMPT[\s\S]*first answer/,
  );

  term.type(`/resume ${id}`);
  term.keys("Enter");
  const resumed = await term.waitFor(new RegExp(`\\[rt\\] resumed session ${id}`));
  assert.match(statusLine(resumed), /^ollama\/test-model · auto-edit · /, "the approval mode chosen in this UI stays");
  assert.match(resumed, /^❯ remember FIRST-PROMPT$/m, "the resumed session's conversation is shown again");

  term.type("/clear");
  term.keys("Enter");
  const cleared = await term.waitFor(/\[rt\] context cleared/);
  assert.doesNotMatch(cleared, /FIRST-PROMPT/);
  term.type("after clear");
  term.keys("Enter");
  await term.waitFor(/second answer/);
  assert.doesNotMatch(
    requestText(ollama.server.completions[1].body),
    /FIRST-PROMPT/,
    "the next request starts from an empty context",
  );
  // @path: Tab completes a workspace file. Sent as one chunk, as keys typed faster than the UI reads
  // them arrive: the Tab in it is still Tab, not a tab character in the prompt.
  term.type("look at @no\t");
  await term.waitFor(/^❯ look at @notes\.md\s*$/m);
  term.keys("C-c");
  await term.waitFor((s) => /^❯\s*$/m.test(s));

  // New lines as terminals send Shift+Enter (kitty's CSI u, xterm's modifyOtherKeys) and Alt+Enter.
  term.type("a\x1b[13;2ub\x1b[27;2;13~c\x1b\rd");
  await term.waitFor(/^❯ a\n {2}b\n {2}c\n {2}d/m);
  term.keys("C-c");
  await term.waitFor((s) => /^❯\s*$/m.test(s));

  // A paste (bracketed, as the terminal sends it): its newline stays in the prompt; nothing is sent.
  execFileSync("tmux", ["-L", term.socketName, "set-buffer", "pasted one\npasted two"]);
  execFileSync("tmux", ["-L", term.socketName, "paste-buffer", "-p", "-t", "rt"]);
  await term.waitFor(/^❯ pasted one\n {2}pasted two/m);
  assert.equal(ollama.server.completions.length, 2);
  term.keys("Enter");
  await term.waitFor(/third answer/);
  assert.match(requestText(ollama.server.completions[2].body), /pasted one\npasted two/);
});
