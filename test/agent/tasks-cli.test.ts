// Issue 14 through the built CLI: `rt agents`, stream-json's parent_tool_use_id,
// `rt export` of a session with subagents, `rt run` with exit_plan_mode, and
// `rt chat` in a real pseudo-terminal (util-linux `script`) answering ask_user,
// reviewing a plan and showing todos. The model is the scripted server reached
// as Ollama.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { reply, type RecordedRequest } from "../llm-server.ts";
import { tempTree, rt, CLI } from "../helpers.ts";
import { scriptedOllama } from "./harness.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model"];

const systemOf = (r: RecordedRequest): string =>
  String((r.body.messages ?? []).find((m: { role: string }) => m.role === "system")?.content ?? "");
const toolResults = (r: RecordedRequest): string[] =>
  (r.body.messages ?? []).filter((m: { role: string }) => m.role === "tool").map((m: { content: string }) => m.content);

/** A home of its own (the user's agent files, the trust store) for each test. */
function userEnv(files: Record<string, string> = {}) {
  const home = tempTree(files, "rt-home-");
  return ollama.env({ HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") });
}

test("rt agents lists the built-ins, the user's and a trusted project's definitions, what could not be read, and what is not read before trust", async () => {
  const env = userEnv({
    ".config/rt/agents/tester.md":
      "---\ndescription: Runs the tests\ntools: [Bash, Read, Frobnicate]\nmodel: sonnet\n---\nYou are tester.\n",
    ".claude/agents/broken.md": "---\nname: broken\n---\nNo description.\n",
  });
  const root = tempTree({
    ".claude/agents/reviewer.md":
      "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: ollama/other\n---\nYou are reviewer.\n",
  });
  const before = await rt(["agents"], { cwd: root, env });
  assert.equal(before.code, 0, before.stderr);
  assert.match(
    before.stdout,
    /^tester {2}\(user: .*\.config\/rt\/agents\/tester\.md\)\n {2}Runs the tests\n {2}tools: bash, read, Frobnicate · model: inherit\n {2}note: model "sonnet" is a Claude Code alias: the session's model is used\n {2}note: unknown tool "Frobnicate": left out\n/,
  );
  assert.match(
    before.stdout,
    /\nExplore {2}\(built-in\)\n.*\n {2}tools: read, open, grep, find, ls, bash · read-only \(sandboxed shell\) · model: inherit\n/,
  );
  assert.match(before.stdout, /problem: .*broken\.md: description is missing/);
  assert.match(before.stdout, /not read: \.claude\/agents \(the folder is not trusted; rt trust trusts it\)/);
  assert.doesNotMatch(before.stdout, /^reviewer/m);
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);
  const after = await rt(["agents", "--json"], { cwd: root, env });
  const listed = JSON.parse(after.stdout) as {
    agents: Array<{ name: string; file: string | null; tools: unknown; model: string; source: string }>;
  };
  assert.deepEqual(
    listed.agents.map((a) => a.name),
    ["reviewer", "tester", "general-purpose", "Explore", "Plan"],
  );
  assert.deepEqual(listed.agents[0], {
    ...listed.agents[0],
    source: "project",
    tools: ["read", "grep"],
    model: "ollama/other",
  });
});

test("rt run --output-format stream-json: a subagent's events carry parent_tool_use_id; rt export shows its run after the task result", async () => {
  const root = tempTree({ "src/a.py": "def a():\n    return 1\n" });
  const env = userEnv();
  ollama.server.script(
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
    reply.text("It is in src/a.py:1."),
  );
  const r = await rt(["run", ...MODEL, "--output-format", "stream-json", "where is a?"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  const events = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.match(systemOf(ollama.server.completions[1]), /^You are Explore/);
  const nested = events.filter((e) => e.parent_tool_use_id === "call_t1");
  assert.ok(nested.some((e) => e.type === "tool_start" && e.name === "grep"));
  assert.ok(nested.some((e) => e.type === "turn_complete" && e.text === "a is at src/a.py:1"));
  assert.deepEqual(
    events.filter((e) => e.type === "subagent_start").map((e) => [e.parent_tool_use_id, e.subagent_type]),
    [["call_t1", "Explore"]],
  );
  const last = events[events.length - 1];
  assert.equal(last.type, "turn_complete");
  assert.equal(last.parent_tool_use_id, undefined);
  assert.equal(last.text, "It is in src/a.py:1.");
  assert.equal(last.usage.requests, 4);
  const exported = await rt(["export", last.session_id], { cwd: root, env });
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(
    exported.stdout,
    /\*\*Result of\*\* `task`\n\n```text\na is at src\/a\.py:1\n[\s\S]*<details><summary>Subagent Explore: find a \(2 model requests[\s\S]*### User\n\nWhere is a defined\?[\s\S]*\*\*Tool call\*\* `grep`[\s\S]*<\/details>/,
  );
  // The sessions list holds the main session only.
  const sessions = JSON.parse((await rt(["sessions", "--json"], { cwd: root, env })).stdout) as unknown[];
  assert.equal(sessions.length, 1);
});

test("rt run --approval plan: exit_plan_mode's plan is the answer; nothing changes", async () => {
  const root = tempTree({ "src/a.py": "def a():\n    return 1\n" });
  ollama.server.script(
    reply.toolCall("read", { path: "src/a.py" }),
    reply.toolCall("exit_plan_mode", { plan: "1. Make a() return 2 (src/a.py:2).\n2. Run the tests." }),
  );
  const r = await rt(["run", ...MODEL, "--approval", "plan", "make a return 2"], { cwd: root, env: userEnv() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "1. Make a() return 2 (src/a.py:2).\n2. Run the tests.\n");
  assert.equal(fs.readFileSync(path.join(root, "src/a.py"), "utf8"), "def a():\n    return 1\n");
  assert.equal(ollama.server.pending, 0);
});

/** `rt chat` in a pseudo-terminal (`script` allocates one): its input and output are a terminal's. */
function chatInTerminal(t: TestContext, root: string, env: Record<string, string | undefined>, extra: string[] = []) {
  const command = [process.execPath, CLI, "chat", ...MODEL, ...extra]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: root,
    env: { ...process.env, ...env, RT_ROOT: undefined, TERM: "dumb", NO_COLOR: "1" } as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  child.stdout.on("data", (c) => (out += c.toString("utf8")));
  const waitFor = (re: RegExp, from = 0) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}; screen: ${out}`)), 15_000);
      const check = () => {
        if (re.test(out.slice(from))) {
          clearTimeout(timer);
          child.stdout.off("data", check);
          resolve();
        }
      };
      child.stdout.on("data", check);
      check();
    });
  return {
    type: (s: string) => child.stdin.write(s),
    waitFor,
    output: () => out,
    closed: new Promise<number | null>((r) => child.on("close", r)),
  };
}

test("rt chat in a terminal: todos shown as they change, an ask_user question answered by number and one with Other, a plan rejected then accepted", async (t) => {
  const root = tempTree({ "src/a.py": "def a():\n    return 1\n" });
  const env = userEnv();
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
        { content: "Plan the change", activeForm: "Planning", status: "pending" },
      ],
    }),
    reply.toolCall("ask_user", question),
    reply.toolCall("ask_user", question),
    reply.toolCall("exit_plan_mode", { plan: "Make a() return 2." }),
    reply.toolCall("exit_plan_mode", { plan: "Make a() return 2, and add a test." }),
    reply.toolCall("edit", { path: "src/a.py", old_string: "return 1", new_string: "return 2" }),
    reply.text("Done: a() returns 2."),
  );
  const chat = chatInTerminal(t, root, env, ["--approval", "plan"]);
  await chat.waitFor(/> $/m);
  chat.type("change a\r");
  await chat.waitFor(/\[→\] Asking the user[\s\S]*\[ \] Plan the change/);
  await chat.waitFor(
    /\[Value\] Which value should a\(\) return\?\r?\n {2}1\. Two — return 2\r?\n {2}2\. Three — return 3\r?\n {2}3\. Other \(type your own answer\)/,
  );
  chat.type("1\r");
  let mark = chat.output().length;
  await chat.waitFor(/Choose 1-3, or type an answer: /, mark);
  chat.type("four, please\r");
  await chat.waitFor(/── Plan ──\r?\nMake a\(\) return 2\.\r?\n/);
  chat.type("n\r");
  await chat.waitFor(/What should change\? /);
  chat.type("add a test\r");
  mark = chat.output().length;
  await chat.waitFor(/── Plan ──\r?\nMake a\(\) return 2, and add a test\./, mark);
  chat.type("e\r");
  await chat.waitFor(/Done: a\(\) returns 2\./);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
  const sent = ollama.server.completions;
  assert.equal(
    toolResults(sent[2])[1],
    'The user answered:\n"Which value should a() return?" → "Two"\nGo on with these answers in mind.',
  );
  assert.equal(
    toolResults(sent[3])[2],
    'The user answered:\n"Which value should a() return?" → Other: "four, please"\nGo on with these answers in mind.',
  );
  assert.match(toolResults(sent[4])[3], /The user rejected the plan and said: add a test/);
  assert.match(toolResults(sent[5])[4], /accepted the plan.*approval mode: auto-edit/);
  assert.equal(fs.readFileSync(path.join(root, "src/a.py"), "utf8"), "def a():\n    return 2\n");
});
