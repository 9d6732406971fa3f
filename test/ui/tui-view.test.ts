// The full-screen UI's parts without a terminal: the conversation built from
// agent events (todos, subagents nested under their task call, collapsed
// results, diffs), the status line, the screen layout, the prompt editor and
// its history, and the dialogs answering the agent's UserInteraction callbacks
// (approvals, ask_user with the arrow keys, plan review).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Conversation } from "../../src/ui/tui/conversation.ts";
import { conversationLines, todoLines, type ViewTools } from "../../src/ui/tui/lines.ts";
import { TUI_RESULT_PREVIEW_LINES as RESULT_PREVIEW_LINES } from "../../src/base/limits.ts";
import { bare, palette } from "../../src/ui/tui/palette.ts";
import { statusLine } from "../../src/ui/tui/status.ts";
import { composeScreen } from "../../src/ui/tui/screen.ts";
import { Editor, HistoryCursor } from "../../src/ui/tui/editor.ts";
import { PromptHistory, promptHistoryFile } from "../../src/ui/tui/promptHistory.ts";
import {
  dialogKey,
  dialogLines,
  planDialog,
  questionsDialog,
  type Dialog,
  type DialogKey,
} from "../../src/ui/tui/dialogs.ts";
import { TuiController } from "../../src/ui/tui/controller.ts";
import { commonPrefix, pathCandidates, slashCandidates } from "../../src/ui/tui/completion.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import type { AgentStreamEvent, UsageTotals } from "../../src/agent/events.ts";
import type { UserAnswer } from "../../src/agent/interaction.ts";
import type { PlanDecision } from "../../src/agent/interaction.ts";
import { tempTree } from "../helpers.ts";

const plain = bare;
const colour = palette({});
/** Plain tools: Markdown as it is, wrapping by characters (the real ones are tested in the terminal). */
const tools = (p = plain): ViewTools => ({
  palette: p,
  markdown: (text) => text,
  wrap: (text, width) => {
    const out: string[] = [];
    for (let i = 0; i < text.length || i === 0; i += width) out.push(text.slice(i, i + width));
    return out;
  },
});
const usage = (i: number, o: number): UsageTotals => ({
  input_tokens: i,
  output_tokens: o,
  cached_input_tokens: 0,
  reasoning_tokens: 0,
  requests: 1,
});
const view = (c: Conversation, expanded = false, width = 80) =>
  conversationLines(c, tools(), { width, expanded, now: 10_000 });

test("todos: the panel shows each state and follows every new list", () => {
  const c = new Conversation(() => 0);
  c.apply({
    type: "todos",
    todos: [
      { content: "Read code", activeForm: "Reading code", status: "in_progress" },
      { content: "Tests", activeForm: "Testing", status: "pending" },
    ],
  });
  assert.deepEqual(todoLines(c.todos, plain, 80), ["[→] Reading code", "[ ] Tests"]);
  c.apply({
    type: "todos",
    todos: [
      { content: "Read code", activeForm: "Reading code", status: "completed" },
      { content: "Tests", activeForm: "Testing", status: "in_progress" },
    ],
  });
  assert.deepEqual(todoLines(c.todos, plain, 80), ["[✓] Read code", "[→] Testing"]);
  const screen = composeScreen({
    width: 80,
    height: 24,
    conversation: [],
    scrollBack: 0,
    todos: todoLines(c.todos, plain, 80),
    editor: new Editor(),
    status: "status",
    palette: plain,
  });
  const i = screen.lines.findIndex((l) => l.startsWith("─ Todos"));
  assert.deepEqual(screen.lines.slice(i + 1, i + 3), ["[✓] Read code", "[→] Testing"]);
  assert.equal(screen.lines.length, 24);
  assert.equal(screen.lines[23], "status");
});

test("a subagent's events nest under its task call, and fold to a count when it is done", () => {
  const c = new Conversation(() => 1000);
  const sub = (ev: AgentStreamEvent): AgentStreamEvent => ({ ...ev, parent_tool_use_id: "T1" }) as AgentStreamEvent;
  c.addUser("find the parser");
  c.apply({
    type: "tool_start",
    id: "T1",
    name: "task",
    args: { description: "find the parser", prompt: "..." },
    protocol: "tools",
  });
  c.apply({
    type: "subagent_start",
    parent_tool_use_id: "T1",
    subagent_type: "Explore",
    description: "find the parser",
    model: "ollama/small",
  });
  c.apply(
    sub({ type: "tool_start", id: "S1", name: "grep", args: { pattern: "parse", path: "src" }, protocol: "tools" }),
  );
  c.apply(
    sub({
      type: "tool_end",
      id: "S1",
      name: "grep",
      success: true,
      output: "src/a.ts:1: parse\nsrc/b.ts:2: parse",
      started_at: 0,
      ended_at: 1,
    }),
  );
  c.apply(sub({ type: "text", delta: "It is in src/a.ts." }));
  let lines = view(c);
  const head = lines.findIndex((l) => l.startsWith("● task · Explore: find the parser"));
  assert.ok(head >= 0, lines.join("\n"));
  assert.match(lines[head + 1], /^ {2}│ ● grep "parse" src/);
  assert.match(lines[head + 2], /^ {2}│ {3}⎿ src\/a\.ts:1: parse/);
  assert.ok(lines.some((l) => l === "  │ It is in src/a.ts."));
  assert.equal(c.operation?.label, "Running task…", "the subagent's own events do not change the main status");
  // The text of the subagent stayed out of the main conversation.
  assert.ok(!c.entries.some((e) => e.kind === "answer"));

  c.apply({
    type: "subagent_end",
    parent_tool_use_id: "T1",
    subagent_type: "Explore",
    success: true,
    usage: usage(1200, 80),
  });
  c.apply({
    type: "tool_end",
    id: "T1",
    name: "task",
    success: true,
    output: "The parser is in src/a.ts.",
    started_at: 0,
    ended_at: 1,
  });
  lines = view(c);
  assert.ok(
    lines.some((l) => /⎿ done · 1 tool call · 1,200 in, 80 out \(Ctrl-O shows them\)/.test(l)),
    lines.join("\n"),
  );
  assert.ok(!lines.some((l) => l.includes("│ ● grep")));
  const fold = lines.findIndex((l) => l.includes("⎿ done · 1 tool call"));
  assert.equal(lines[fold + 1], "    The parser is in src/a.ts.", "the report follows under the same ⎿");
  assert.ok(
    view(c, true).some((l) => l.includes("│ ● grep")),
    "expanded, the subagent's calls show again",
  );
});

test("long results are collapsed to a few lines with a count, expanded whole; diffs and failures are coloured", () => {
  const c = new Conversation(() => 0);
  const output = Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join("\n");
  c.apply({ type: "tool_start", id: "A", name: "read", args: { path: "big.txt" }, protocol: "tools" });
  c.apply({ type: "tool_end", id: "A", name: "read", success: true, output, started_at: 0, ended_at: 1 });
  const collapsed = view(c);
  assert.deepEqual(collapsed.slice(0, 2), ["● read big.txt", "  ⎿ row 1"]);
  assert.equal(collapsed.filter((l) => /^ {4}row \d+$/.test(l)).length, RESULT_PREVIEW_LINES - 1);
  assert.equal(collapsed[collapsed.length - 1], `    … +${50 - RESULT_PREVIEW_LINES} lines (Ctrl-O expands)`);
  assert.ok(view(c, true).includes("    row 50"));

  const d = new Conversation(() => 0);
  d.apply({
    type: "tool_start",
    id: "E",
    name: "edit",
    args: { path: "a.py", old_string: "x", new_string: "y", show_diff: true },
    protocol: "tools",
  });
  d.apply({
    type: "tool_end",
    id: "E",
    name: "edit",
    success: true,
    output: "✓ Edited a.py:3-3\n--- a/a.py\n+++ b/a.py\n@@ -3 +3 @@\n-x = 1\n+y = 1",
    started_at: 0,
    ended_at: 1,
  });
  d.apply({ type: "tool_start", id: "B", name: "bash", args: { command: "false" }, protocol: "tools" });
  d.apply({
    type: "tool_end",
    id: "B",
    name: "bash",
    success: false,
    output: "",
    error: "exit code 1",
    started_at: 0,
    ended_at: 1,
  });
  const lines = conversationLines(d, tools(colour), { width: 80, expanded: false, now: 0 });
  assert.ok(lines.includes("  ⎿ \x1b[32m✓ \x1b[39mEdited a.py:3-3"), lines.join("\n"));
  assert.ok(lines.includes("    \x1b[36m@@ -3 +3 @@\x1b[39m"));
  assert.ok(lines.includes("    \x1b[31m-x = 1\x1b[39m"));
  assert.ok(lines.includes("    \x1b[32m+y = 1\x1b[39m"));
  assert.ok(lines.includes("  ⎿ \x1b[31m✗ exit code 1\x1b[39m"));
});

test("status line: model, approval mode, session tokens, context share, cost, operation with elapsed time; narrow terminals drop hints first", () => {
  const figures = {
    model: "ollama/qwen",
    approval: "ask",
    usage: usage(12_345, 678),
    cost: 0.0123,
    contextTokens: 8000,
    contextWindow: 32_000,
    operation: { label: "Running bash: npm test…", since: 1000 },
    now: 13_500,
  };
  const wide = statusLine(figures, plain, 120);
  assert.match(
    wide,
    /^ollama\/qwen · ask · 12k in \/ 678 out · context 25% · \$0\.0123 +Running bash: npm test… 12s · Esc interrupts$/,
  );
  assert.equal(wide.length, 120);
  const narrow = statusLine(figures, plain, 80);
  assert.equal(narrow.length, 80);
  assert.match(narrow, /Running bash: npm test… 12s$/);
  const idle = statusLine({ ...figures, operation: undefined, cost: undefined }, plain, 100);
  assert.match(idle, /^ollama\/qwen · ask · 12k in \/ 678 out · context 25% +\/help · Ctrl-C twice quits$/);
  assert.doesNotMatch(statusLine(figures, palette({ NO_COLOR: "1" }), 120), /\x1b/, "NO_COLOR: no colours");
  assert.match(statusLine(figures, colour, 120), /\x1b\[33mRunning bash/);
});

test("the screen at 80x24: exactly 24 lines within 80 columns, the prompt at the bottom, scrolled back with a marker", () => {
  const conversation = Array.from({ length: 100 }, (_, i) => `line ${i}`);
  const ed = new Editor();
  ed.insert("hello");
  const s = composeScreen({
    width: 80,
    height: 24,
    conversation,
    scrollBack: 0,
    todos: [],
    editor: ed,
    status: "status",
    palette: plain,
  });
  assert.equal(s.lines.length, 24);
  assert.deepEqual(s.lines.slice(-3), ["─".repeat(80), "❯ hello ", "status"]);
  assert.equal(s.lines[s.viewRows - 1], "line 99");
  const back = composeScreen({
    width: 80,
    height: 24,
    conversation,
    scrollBack: 30,
    todos: [],
    editor: ed,
    status: "status",
    palette: plain,
  });
  assert.equal(back.lines[0], `line ${100 - 30 - back.viewRows}`);
  assert.match(back.lines[back.viewRows - 1], /↓ 30 more lines below/);
  const tooFar = composeScreen({
    width: 80,
    height: 24,
    conversation,
    scrollBack: 1000,
    todos: [],
    editor: ed,
    status: "status",
    palette: plain,
  });
  assert.equal(tooFar.scrollBack, 100 - tooFar.viewRows);
  assert.equal(tooFar.lines[0], "line 0");
});

test("NO_COLOR: no colour anywhere, but the cursor and the chosen completion stay in inverse video", () => {
  const noColor = palette({ NO_COLOR: "1" });
  assert.equal(noColor.red("x") + noColor.green("x") + noColor.dim("x") + noColor.bold("x"), "xxxx");
  const ed = new Editor();
  ed.insert("hi");
  const s = composeScreen({
    width: 40,
    height: 10,
    conversation: ["answer"],
    scrollBack: 0,
    todos: [],
    editor: ed,
    completion: { values: [{ value: "/help" }, { value: "/model" }], selected: 1 },
    status: "status",
    palette: noColor,
  });
  assert.ok(s.lines.includes("❯ hi\x1b[7m \x1b[27m"), s.lines.join("\n"));
  assert.ok(s.lines.includes(`\x1b[7m  /model${" ".repeat(0)}\x1b[27m`), s.lines.join("\n"));
  assert.ok(s.lines.every((l) => !/\x1b\[(3\d|9\d|2|1)m/.test(l)));
});

test("editor: typing, pasted lines, backspace joining lines, words, and ↑/↓ through history with the draft kept", () => {
  const e = new Editor();
  e.insert("first\r\nsecond");
  assert.deepEqual(e.lines, ["first", "second"]);
  e.home();
  e.backspace();
  assert.equal(e.text, "firstsecond");
  assert.equal(e.col, 5);
  e.newline();
  e.end();
  e.insert(" word");
  e.killWord();
  assert.equal(e.text, "first\nsecond ");
  assert.deepEqual(e.wordAtCursor(), { word: "", start: 7 });
  e.insert("@src/ma");
  assert.deepEqual(e.wordAtCursor(), { word: "@src/ma", start: 7 });
  e.replaceWord(7, "@src/main.ts ");
  assert.equal(e.text, "first\nsecond @src/main.ts ");

  const entries = ["one", "two"];
  const h = new HistoryCursor(() => entries);
  assert.equal(h.older("draft"), "two");
  assert.equal(h.older("two"), "one");
  assert.equal(h.older("one"), undefined);
  assert.equal(h.newer(), "two");
  assert.equal(h.newer(), "draft");
  assert.equal(h.newer(), undefined);
});

test("prompt history: per project in the user's state dir, mode 0600, never through a symlink", () => {
  const state = tempTree({}, "rt-state-");
  const env = { XDG_STATE_HOME: state };
  const a = promptHistoryFile("/projects/a", env);
  const b = promptHistoryFile("/projects/b", env);
  assert.notEqual(a, b);
  assert.ok(a.startsWith(path.join(state, "rt", "prompts") + path.sep));
  const h = new PromptHistory(a);
  h.add("fix the bug");
  h.add("fix the bug");
  h.add("line one\nline two");
  assert.deepEqual(new PromptHistory(a).entries, ["fix the bug", "line one\nline two"]);
  assert.equal(fs.statSync(a).mode & 0o777, 0o600);
  // A symlink planted where the file of project b goes: nothing is written through it.
  const target = path.join(state, "elsewhere.txt");
  fs.writeFileSync(target, "untouched\n");
  fs.symlinkSync(target, b);
  new PromptHistory(b).add("secret prompt");
  assert.equal(fs.readFileSync(target, "utf8"), "untouched\n");
});

test("approval dialog: y, a and n answer (n then asks why, for the model); Esc is no; it shows the command or the change", async () => {
  const c = new TuiController({ ws: createWorkspace({ root: tempTree({}), env: {} }), flags: {}, customCommands: [] });
  const approve = c.interaction.approve!;
  const answers: unknown[] = [];
  const typed = (text: string): DialogKey[] => [...text].map((ch) => ({ input: ch }));
  const presses: DialogKey[][] = [
    [{ input: "y" }],
    [{ input: "a" }],
    [{ input: "n" }, { input: "", enter: true }],
    [{ input: "", escape: true }],
    [{ input: "n" }, ...typed("use git mv"), { input: "", backspace: true }, ...typed("v"), { input: "", enter: true }],
    [{ input: "n" }, ...typed("x"), { input: "", escape: true }],
  ];
  for (const keys of presses) {
    const p = approve({
      tool: "edit",
      category: "edit",
      args: { path: "a.py", old_string: "x = 1", new_string: "x = 2" },
      summary: "edit a.py",
      agent: "Explore: find",
    });
    assert.equal(c.dialogs.length, 1);
    const lines = dialogLines(c.dialogs[0], plain, 80);
    assert.deepEqual(lines.slice(0, 3), ["[Explore: find] rt wants to edit: edit a.py", "  - x = 1", "  + x = 2"]);
    assert.equal(c.dialogKey({ input: "z" }), true, "a key the dialog ignores is still taken from the prompt");
    for (const key of keys) {
      if (key.enter && keys[0].input === "n" && keys.length > 2)
        assert.match(
          dialogLines(c.dialogs[0], plain, 80).at(-1)!,
          /^No, because \(Enter sends it to the model, empty for no reason\): use git mv▏$/,
        );
      c.dialogKey(key);
    }
    answers.push(await p);
    assert.equal(c.dialogs.length, 0);
  }
  assert.deepEqual(answers, ["yes", "always", "no", "no", { answer: "no", reason: "use git mv" }, "no"]);
});

test("ask_user: arrow keys choose, Space picks several, Other takes free text; Esc dismisses", async () => {
  const c = new TuiController({ ws: createWorkspace({ root: tempTree({}), env: {} }), flags: {}, customCommands: [] });
  const questions = [
    {
      question: "Which database?",
      header: "Database",
      multiSelect: false,
      options: [
        { label: "SQLite", description: "a file" },
        { label: "PostgreSQL", description: "a server" },
      ],
    },
    {
      question: "Which checks?",
      header: "Checks",
      multiSelect: true,
      options: [
        { label: "lint", description: "" },
        { label: "types", description: "" },
        { label: "tests", description: "" },
      ],
    },
    {
      question: "Name?",
      header: "Name",
      multiSelect: false,
      options: [
        { label: "rt", description: "" },
        { label: "rtx", description: "" },
      ],
    },
  ];
  const p = c.interaction.askUser!(questions, { subagent_type: "Plan", description: "design" });
  const d = () => c.dialogs[0] as Dialog;
  assert.match(dialogLines(d(), plain, 80)[0], /^\[Plan: design\] \(1\/3\) Database: Which database\?$/);
  assert.ok(dialogLines(d(), plain, 80).includes("  3. Other — type your own answer"));
  c.dialogKey({ input: "", down: true });
  assert.ok(dialogLines(d(), plain, 80).includes("❯ 2. PostgreSQL — a server"));
  c.dialogKey({ input: "", enter: true });
  // Multi-select: Space on lint, ↓↓ Space on tests, Enter.
  c.dialogKey({ input: " ", space: true });
  c.dialogKey({ input: "", down: true });
  c.dialogKey({ input: "", down: true });
  c.dialogKey({ input: " ", space: true });
  assert.ok(dialogLines(d(), plain, 80).includes("❯ 3. [x] tests"));
  c.dialogKey({ input: "", enter: true });
  // Other: ↑ wraps to the last choice, Enter opens the text field.
  c.dialogKey({ input: "", up: true });
  c.dialogKey({ input: "", enter: true });
  for (const ch of "rt-agentx") c.dialogKey({ input: ch });
  c.dialogKey({ input: "", backspace: true });
  assert.ok(dialogLines(d(), plain, 80).some((l) => l.startsWith("  > rt-agent")));
  c.dialogKey({ input: "", enter: true });
  const answers = (await p) as UserAnswer[];
  assert.deepEqual(answers, [
    { question: "Which database?", selected: ["PostgreSQL"] },
    { question: "Which checks?", selected: ["lint", "tests"] },
    { question: "Name?", selected: [], other: "rt-agent" },
  ]);

  const dismissed = c.interaction.askUser!(questions.slice(0, 1));
  c.dialogKey({ input: "", escape: true });
  assert.equal(await dismissed, undefined);
});

test("plan review: accept with an approval mode, or reject with feedback", async () => {
  let got: PlanDecision | undefined;
  const d = planDialog("1. Read\n2. Change", (v) => (got = v));
  assert.ok(dialogLines(d, plain, 80).includes("❯ 1. Yes, and approve edits automatically (auto-edit)"));
  dialogKey(d, { input: "", down: true });
  assert.equal(dialogKey(d, { input: "", enter: true }), true);
  assert.deepEqual(got, { accept: true, approval: "ask" });

  const r = planDialog("plan", (v) => (got = v));
  dialogKey(r, { input: "4" });
  dialogKey(r, { input: "", enter: true });
  for (const ch of "use SQLite") dialogKey(r, { input: ch });
  assert.equal(dialogKey(r, { input: "", enter: true }), true);
  assert.deepEqual(got, { accept: false, feedback: "use SQLite" });
  const q = questionsDialog(
    [
      {
        question: "?",
        header: "h",
        multiSelect: false,
        options: [
          { label: "a", description: "" },
          { label: "b", description: "" },
        ],
      },
    ],
    undefined,
    () => undefined,
  );
  assert.equal(dialogKey(q, { input: "", enter: true }), true);
});

test("completion: slash commands by prefix (custom ones too), @paths from the workspace's files", async () => {
  assert.deepEqual(
    slashCandidates("/co", []).map((c) => c.value),
    ["/compact", "/cost"],
  );
  assert.deepEqual(
    slashCandidates("/re", [{ name: "review", description: "review the diff" }]).map((c) => c.value),
    ["/resume", "/rewind", "/review"],
  );
  assert.equal(commonPrefix(["/compact", "/cost"]), "/co");
  const root = tempTree({
    "src/main.ts": "",
    "src/mapper.ts": "",
    "docs/manual.md": "",
    "ignored/x.ts": "",
    ".gitignore": "ignored/\n",
  });
  const ws = createWorkspace({ root, env: {} });
  const found = (await pathCandidates(ws, "ma")).map((c) => c.value);
  assert.deepEqual(found.sort(), ["@docs/manual.md", "@src/main.ts", "@src/mapper.ts"]);
  assert.deepEqual((await pathCandidates(ws, "src/")).map((c) => c.value).sort(), ["@src/main.ts", "@src/mapper.ts"]);
  assert.deepEqual(await pathCandidates(ws, "x.ts"), [], ".gitignore is honoured");
});

test("tokens count up during a turn (each model request), then the session's own total replaces them", () => {
  const c = new Conversation(() => 0);
  c.sessionUsage = usage(100, 10);
  c.apply({ type: "model_turn_end", finish_reason: "tool_calls", tool_calls: 1, usage: usage(50, 5) });
  assert.deepEqual([c.usage?.input_tokens, c.usage?.output_tokens], [150, 15]);
  c.apply({ type: "model_turn_end", finish_reason: "stop", tool_calls: 0, usage: usage(60, 6) });
  assert.deepEqual([c.usage?.input_tokens, c.usage?.output_tokens], [210, 21]);
  c.apply({
    type: "turn_complete",
    session_id: "s",
    text: "",
    model_turns: 2,
    finish_reason: "stop",
    protocol: "tools",
    usage: usage(110, 11),
    session_usage: usage(210, 21),
    session_cost: 0.5,
  });
  assert.deepEqual([c.usage?.input_tokens, c.usage?.output_tokens, c.sessionCost], [210, 21, 0.5]);
  // Interrupted before the session's count came: what was counted stays.
  c.apply({ type: "model_turn_end", finish_reason: "error", tool_calls: 0, usage: usage(7, 0) });
  c.end();
  assert.deepEqual([c.usage?.input_tokens, c.turnUsage], [217, undefined]);
});

test("reasoning shows dimmed, folded to its first lines until expanded; a tool call cut by an interrupt says so", () => {
  const c = new Conversation(() => 0);
  c.apply({ type: "reasoning", delta: "step one\nstep two\n" });
  c.apply({ type: "reasoning", delta: "step three\nstep four\nstep five" });
  c.apply({ type: "text", delta: "Answer." });
  const lines = view(c);
  assert.deepEqual(lines, [
    "∴ step one",
    "∴ step two",
    "∴ step three",
    "  … 2 more lines of reasoning (Ctrl-O shows them)",
    "Answer.",
  ]);
  assert.ok(view(c, true).includes("∴ step five"));
  const coloured = conversationLines(c, tools(colour), { width: 80, expanded: false, now: 0 });
  assert.equal(coloured[0], "\x1b[2m∴ step one\x1b[22m");
  c.apply({ type: "tool_start", id: "B", name: "bash", args: { command: "sleep 30" }, protocol: "tools" });
  assert.equal(c.operation?.label, "Running bash: sleep 30…");
  c.end();
  assert.equal(c.operation, undefined);
  assert.ok(view(c).includes("  ⎿ ✗ interrupted"));
});

test("Markdown: headings, lists (their inline bold and code too), code blocks and tables, within the width; NO_COLOR gives no escapes", async () => {
  const { loadMarkdown } = await import("../../src/ui/tui/markdown.ts");
  const md = await loadMarkdown(palette({ NO_COLOR: "1" }));
  const out = md(
    "## Plan\n\n- **bold** and `code`\n- two\n\n```ts\nconst x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
      "word ".repeat(40),
    40,
  );
  const lines = out.split("\n");
  assert.ok(lines.includes("## Plan"), out);
  assert.ok(lines.includes("  * bold and code"), out);
  assert.ok(lines.includes("  const x = 1;"), out);
  assert.ok(
    lines.some((l) => /│ 1 +│ 2 +│/.test(l)),
    out,
  );
  assert.ok(
    lines.every((l) => l.length <= 40),
    out,
  );
  assert.doesNotMatch(out, /\x1b/);
});
