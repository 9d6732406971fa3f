// Custom slash commands (issue 18): Claude Code's Markdown format with
// frontmatter, $ARGUMENTS and $1..$9, from .rt/commands and .claude/commands
// (trusted folders only) and the user's directories; run as `rt run /NAME
// args` and typed in `rt chat`, the model played by the scripted server.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { rt, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { requestText, scriptedOllama } from "../agent/harness.ts";
import {
  expandArguments,
  loadCustomCommands,
  resolveSlashCommand,
  type CustomCommand,
} from "../../src/extensions/slashCommands.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model"];

const REVIEW = `---
description: Review a file for bugs
argument-hint: FILE [FOCUS]
allowed-tools: Read, grep, Bash(git diff:*)
---
Review $1 for bugs, focusing on $2.
Everything given: $ARGUMENTS
`;

function project(): string {
  return tempTree({
    "src/a.py": "def f():\n    return 1\n",
    ".rt/commands/review.md": REVIEW,
    ".claude/commands/explain.md": "Explain the code of this project in simple words.\n",
    ".claude/commands/git/summary.md":
      "---\ndescription: Summarize changes\n---\nSummarize the changes in $ARGUMENTS.\n",
  });
}

test("rt run /review with arguments: the expanded prompt is what the model gets; allowed-tools pre-approves its bare names only", async () => {
  const root = project();
  const env = ollama.env({ HOME: ollama.configHome });
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  ollama.server.script(
    reply.toolCall("read", { path: "src/a.py" }),
    reply.toolCall("bash", { command: "touch made" }),
    reply.text("Looks fine."),
  );
  const r = await rtMain(["run", ...MODEL, "--approval", "never", "/review", "src/a.py", '"error handling"'], {
    cwd: root,
    env,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Looks fine.\n");
  const sent = requestText(ollama.server.completions[0].body);
  assert.match(
    sent,
    /Review src\/a\.py for bugs, focusing on error handling\.\nEverything given: src\/a\.py "error handling"/,
  );
  // read is free anyway; bash is not pre-approved (only "Bash(git diff:*)" was given, which rt does not widen): refused under --approval never.
  const tools = requestText(ollama.server.completions[2].body);
  assert.match(tools, /def f\(\)/);
  assert.match(tools, /needs approval and the approval mode is "never"/);
  assert.ok(!fs.existsSync(path.join(root, "made")));
});

test("a command's allowed-tools runs those tools without asking, for its turn only", async () => {
  const root = tempTree({ ".rt/commands/touch.md": "---\nallowed-tools: Bash\n---\nMake the file $1.\n" });
  const env = ollama.env({ HOME: ollama.configHome });
  await rtMain(["trust"], { cwd: root, env });
  ollama.server.script(reply.toolCall("bash", { command: "touch made" }), reply.text("made it"));
  const r = await rtMain(["run", ...MODEL, "--approval", "ask", "/touch", "made"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(root, "made")));
  // The same call without the command is refused (no terminal to ask on).
  ollama.server.reset();
  ollama.server.script(reply.toolCall("bash", { command: "touch other" }), reply.text("no"));
  await rtMain(["run", ...MODEL, "--approval", "ask", "make other"], { cwd: root, env });
  assert.ok(!fs.existsSync(path.join(root, "other")));
});

test("an unknown command is a usage error naming the commands; an untrusted project's commands are not read", async () => {
  const root = project();
  const env = ollama.env({ HOME: ollama.configHome });
  const r = await rtMain(["run", ...MODEL, "/review", "x"], { cwd: root, env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no custom command \/review; commands: none .*not read: the folder is not trusted/);
  assert.equal(ollama.server.completions.length, 0);
});

test("rt chat: /help lists custom commands; a namespaced Claude command with $ARGUMENTS runs", async () => {
  const root = project();
  const env = ollama.env({ HOME: ollama.configHome });
  await rtMain(["trust"], { cwd: root, env });
  ollama.server.script(reply.text("Two files changed."));
  const r = await rt(["chat", ...MODEL], { cwd: root, env, input: "/help\n/git:summary the last commit\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /Custom commands:\n {2}\/explain .*\n {2}\/git:summary +Summarize changes\n {2}\/review FILE \[FOCUS\] +Review a file for bugs/,
  );
  assert.match(r.stdout, /Two files changed\./);
  assert.match(requestText(ollama.server.completions[0].body), /Summarize the changes in the last commit\./);
});

test("user commands from ~/.config/rt/commands and ~/.claude/commands; a project command of the same name wins", async () => {
  const home = tempTree({
    ".claude/commands/explain.md": "user explain\n",
    ".claude/commands/hello.md": "Say hello to $ARGUMENTS.\n",
    "cfg/rt/commands/todo.md": "List TODOs\n",
  });
  const root = project();
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, "cfg") };
  const { commands } = await loadCustomCommands(createWorkspace({ root, env }));
  assert.deepEqual(commands.map((c) => `${c.name}:${c.origin}`).sort(), ["explain:user", "hello:user", "todo:user"]);
  const trust = await rtMain(["trust"], { cwd: root, env });
  assert.equal(trust.code, 0);
  const after = await loadCustomCommands(createWorkspace({ root, env }));
  assert.deepEqual(after.commands.map((c) => `${c.name}:${c.origin}`).sort(), [
    "explain:project",
    "git:summary:project",
    "hello:user",
    "review:project",
    "todo:user",
  ]);
  const review = after.commands.find((c) => c.name === "review")!;
  assert.deepEqual(review.allowedTools, ["read", "grep"]);
  assert.deepEqual(review.ignoredAllowedTools, ["Bash(git diff:*)"]);
});

test("expansion: $ARGUMENTS, $N with quotes, arguments appended when the body names none, other lines untouched", () => {
  assert.equal(expandArguments("a $1 b $2 c $3.", `x "y z"`), "a x b y z c .");
  assert.equal(expandArguments("all: $ARGUMENTS; cost $10", "p q"), "all: p q; cost $10");
  const cmd: CustomCommand = {
    name: "n",
    body: "Do it.",
    allowedTools: [],
    ignoredAllowedTools: [],
    file: "/x/n.md",
    origin: "user",
  };
  assert.equal(resolveSlashCommand("/n", [cmd])?.prompt, "Do it.");
  assert.equal(resolveSlashCommand("/n some args", [cmd])?.prompt, "Do it.\n\nsome args");
  assert.equal(resolveSlashCommand("/m", [cmd]), undefined);
  assert.equal(resolveSlashCommand("plain text", [cmd]), undefined);
});
