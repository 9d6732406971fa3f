// Claude Code's hooks in rt: the hooks of `.claude/settings.json` (behind
// trust, pinned with the scripts of `.claude/hooks/`) and `~/.claude/settings.json`,
// written the way Claude Code's documentation writes them (a jq one-liner that
// logs Bash commands, a script that blocks edits of .env with exit 2), run by
// `rt run` against the scripted model server: they match Claude Code's tool
// names and read Claude Code's argument names; their updatedInput comes back in
// rt's names; failing hooks are said on standard error in every output mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { rt, tempTree } from "../helpers.ts";
import { collect, makeAgent, ofType, scriptedOllama } from "../agent/harness.ts";
import { Conversation } from "../../src/ui/tui/conversation.ts";
import { conversationLines } from "../../src/ui/tui/lines.ts";
import { bare } from "../../src/ui/tui/palette.ts";
import { fromClaudeInput, toClaudeInput } from "../../src/extensions/claudeToolNames.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model"];

// Claude Code's documentation: "log every shell command" (PreToolUse, matcher Bash).
const BASH_LOGGER = `jq -r '"\\(.tool_input.command) - \\(.tool_input.description // "No description")"' >> "$CLAUDE_PROJECT_DIR/bash-log.txt"`;
// A PreToolUse guard of protected files, as Claude Code's guides write one: exit 2, the reason on stderr.
const PROTECT_ENV = `#!/bin/bash
file_path=$(jq -r '.tool_input.file_path // empty')
if [[ "$file_path" == *.env ]]; then
  echo "Blocked: $file_path is a protected file" >&2
  exit 2
fi
exit 0
`;

const SETTINGS = {
  permissions: { allow: ["Bash(npm test)"] },
  hooks: {
    PreToolUse: [
      { matcher: "Bash", hooks: [{ type: "command", command: BASH_LOGGER }] },
      {
        matcher: "Edit|MultiEdit|Write",
        hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/protect-env.sh' }],
      },
    ],
  },
};

function claudeProject(): string {
  const root = tempTree({
    ".env": "SECRET=1\n",
    ".claude/settings.json": JSON.stringify(SETTINGS, null, 2),
    ".claude/hooks/protect-env.sh": PROTECT_ENV,
  });
  fs.chmodSync(path.join(root, ".claude/hooks/protect-env.sh"), 0o755);
  return root;
}

const toolMessages = (i: number): string[] =>
  ollama.server.completions[i].body.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => m.content);

test("a project's .claude/settings.json hooks run once the folder is trusted: the Bash logger and the .env guard, unchanged", async () => {
  const root = claudeProject();
  const home = tempTree({}, "rt-home-");
  const env = ollama.env({ HOME: home });

  // Not trusted: the hooks do not run, and rt says so.
  ollama.server.script(reply.toolCall("bash", { command: "echo hi", description: "greet" }), reply.text("done"));
  const before = await rt(["run", ...MODEL, "--approval", "auto", "say hi"], { cwd: root, env });
  assert.equal(before.code, 0, before.stderr);
  assert.match(
    before.stderr,
    /not running the hooks of \.claude\/settings\.json until you trust this folder: rt trust /,
  );
  assert.ok(!fs.existsSync(path.join(root, "bash-log.txt")));

  // What trusting would run, and what it pins.
  const show = await rt(["trust", "--show"], { cwd: root, env });
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /hook PreToolUse \[Bash\] \(\.claude\/settings\.json\): runs bash -c "jq -r/);
  assert.match(show.stdout, /hook PreToolUse \[Edit\|MultiEdit\|Write\] \(\.claude\/settings\.json\)/);
  const pinned = /Extension files pinned \(2\): (.*)/.exec(show.stdout)?.[1].split(", ").sort();
  assert.deepEqual(pinned, [".claude/hooks/protect-env.sh", ".claude/settings.json"]);
  assert.equal((await rt(["trust"], { cwd: root, env })).code, 0);

  ollama.server.reset();
  ollama.server.script(
    reply.toolCall("bash", { command: "echo hi", description: "greet" }),
    reply.toolCall("edit", { path: ".env", old_string: "SECRET=1", new_string: "SECRET=2" }),
    reply.toolCall("write", { path: ".env", content: "SECRET=3\n" }),
    reply.toolCall("write", { path: "notes.txt", content: "ok\n" }),
    reply.text("done"),
  );
  const r = await rt(["run", ...MODEL, "--approval", "auto", "work"], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "done\n");
  assert.equal(fs.readFileSync(path.join(root, "bash-log.txt"), "utf8"), "echo hi - greet\n");
  assert.equal(fs.readFileSync(path.join(root, ".env"), "utf8"), "SECRET=1\n");
  assert.equal(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "ok\n");
  const blocked = toolMessages(4).filter((m) => /Blocked/.test(m));
  assert.equal(blocked.length, 2);
  for (const m of blocked)
    assert.match(m, new RegExp(`blocked by a PreToolUse hook: Blocked: ${root}/\\.env is a protected file`));

  // The script the hook runs is pinned: once it changes, no hook of the folder runs until it is trusted again.
  fs.writeFileSync(path.join(root, ".claude/hooks/protect-env.sh"), `${PROTECT_ENV}# edited\n`);
  ollama.server.reset();
  ollama.server.script(
    reply.toolCall("edit", { path: ".env", old_string: "SECRET=1", new_string: "SECRET=4" }),
    reply.text("done"),
  );
  const after = await rt(["run", ...MODEL, "--approval", "auto", "again"], { cwd: root, env });
  assert.equal(after.code, 0, after.stderr);
  assert.match(after.stderr, /changed since you trusted it: \.claude\/hooks\/protect-env\.sh \(edited\)/);
  assert.equal(fs.readFileSync(path.join(root, ".env"), "utf8"), "SECRET=4\n", toolMessages(1).join("\n"));
});

test("a failing, an unexecutable and a slow hook are said on stderr in text, json and stream-json output; the run goes on", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const home = tempTree({
    ".claude/hooks/fail.sh": 'cat > /dev/null; echo "lint server down" >&2; exit 1\n',
    ".claude/hooks/not-executable.sh": "#!/bin/bash\nexit 0\n",
  });
  fs.chmodSync(path.join(home, ".claude/hooks/fail.sh"), 0o755);
  fs.writeFileSync(
    path.join(home, ".claude/settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "~/.claude/hooks/fail.sh" },
              { type: "command", command: "~/.claude/hooks/not-executable.sh" },
              { type: "command", command: "sleep 5", timeout: 1 },
            ],
          },
        ],
        Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }],
      },
    }),
  );
  const env = ollama.env({ HOME: home });
  for (const format of ["text", "json", "stream-json"]) {
    ollama.server.reset();
    ollama.server.script(reply.toolCall("bash", { command: "echo ran > ran.txt" }), reply.text("finished"));
    fs.rmSync(path.join(root, "ran.txt"), { force: true });
    const r = await rt(["run", ...MODEL, "--approval", "auto", "--output-format", format, "go"], { cwd: root, env });
    assert.equal(r.code, 0, `${format}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /warning: PreToolUse hook `~\/\.claude\/hooks\/fail\.sh` failed \(exit code 1\): lint server down/,
    );
    assert.match(
      r.stderr,
      /warning: PreToolUse hook `~\/\.claude\/hooks\/not-executable\.sh` failed \(exit code 126, not executable/,
    );
    assert.match(r.stderr, /warning: PreToolUse hook `sleep 5` timed out after 1 s/);
    assert.match(
      r.stderr,
      /warning: hooks in ~\/\.claude\/settings\.json: hooks\.Notification: an event rt does not run/,
    );
    assert.ok(fs.existsSync(path.join(root, "ran.txt")), `${format}: the call ran`);
    if (format === "text") assert.equal(r.stdout, "finished\n");
    if (format === "json") assert.equal(JSON.parse(r.stdout).result, "finished");
    if (format === "stream-json")
      assert.ok(
        r.stdout.split("\n").some((l) => l.includes('"level":"warning"')),
        "the event carries its level",
      );
  }
});

test("Claude Code's names: tool_input with file_path (absolute), Bash's timeout in ms; updatedInput comes back in rt's names", async () => {
  const root = tempTree({ "a.txt": "one\ntwo\n" });
  const home = tempTree({}, "rt-home-");
  const log = path.join(home, "seen.jsonl");
  const rewrite = `jq -c '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: (.tool_input + {command: "echo rewritten > out.txt"})}}'`;
  fs.mkdirSync(path.join(home, ".claude"));
  fs.writeFileSync(
    path.join(home, ".claude/settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: "Read|Edit", hooks: [{ type: "command", command: `jq -c . >> ${log}` }] },
          { matcher: "Bash", hooks: [{ type: "command", command: `tee -a ${log} | ${rewrite}` }] },
        ],
        PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: `jq -c . >> ${log}` }] }],
      },
    }),
  );
  const savedHome = process.env.HOME;
  const savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = tempTree({}, "rt-config-");
  try {
    ollama.server.script(
      reply.toolCall("read", { path: "a.txt", offset: 2 }),
      reply.toolCall("edit_lines", { path: "a.txt", command: "replace", start_line: 1, new_content: "ONE" }),
      reply.toolCall("bash", { command: "echo original > out.txt", timeout: 5, description: "tidy" }),
      reply.toolCall("write", { path: "b.txt", content: "b\n" }),
      reply.text("ok"),
    );
    const agent = makeAgent(root, ollama.server, { approval: "auto-edit" });
    const events = await collect(agent.run("go"));
    agent.close();
    assert.equal(events[events.length - 1].type, "turn_complete", JSON.stringify(events.at(-1)));
    const seen = fs
      .readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const [read, edit, bash, write] = seen;
    assert.equal(read.tool_name, "Read");
    assert.deepEqual(read.tool_input, { file_path: path.join(root, "a.txt"), offset: 2 });
    assert.equal(edit.tool_name, "Edit");
    assert.equal(edit.tool_input.file_path, path.join(root, "a.txt"));
    assert.equal(edit.tool_input.new_content, "ONE");
    assert.equal(bash.tool_name, "Bash");
    assert.deepEqual(bash.tool_input, { command: "echo original > out.txt", timeout: 5000, description: "tidy" });
    assert.equal(write.hook_event_name, "PostToolUse");
    assert.equal(write.tool_name, "Write");
    assert.equal(write.tool_response.filePath, path.join(root, "b.txt"));
    assert.equal(write.tool_response.success, true);
    // The rewritten command ran (permissionDecision allow: no question, which auto-edit asks for a command), with rt's timeout in seconds.
    assert.equal(fs.readFileSync(path.join(root, "out.txt"), "utf8"), "rewritten\n");
    const start = ofType(events, "tool_start").find((e) => e.name === "bash");
    assert.deepEqual(start?.args, { command: "echo rewritten > out.txt", timeout: 5, description: "tidy" });
    assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "ONE\ntwo\n");
  } finally {
    process.env.HOME = savedHome;
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
  }
});

test("rt's own hooks keep rt's names unless their matcher names Claude Code's tools", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const config = tempTree({}, "rt-config-");
  const log = path.join(config, "seen.jsonl");
  fs.mkdirSync(path.join(config, "rt"));
  fs.writeFileSync(
    path.join(config, "rt", "config.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "read",
            hooks: [{ type: "command", command: `jq -c '{own: .tool_name, i: .tool_input}' >> ${log}` }],
          },
          {
            matcher: "Read",
            hooks: [{ type: "command", command: `jq -c '{claude: .tool_name, i: .tool_input}' >> ${log}` }],
          },
        ],
      },
    }),
  );
  const savedHome = process.env.HOME;
  const savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.HOME = tempTree({}, "rt-home-");
  process.env.XDG_CONFIG_HOME = config;
  try {
    ollama.server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ok"));
    const agent = makeAgent(root, ollama.server);
    await collect(agent.run("go"));
    agent.close();
    const seen = fs
      .readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .sort((a, b) => (a.own ? -1 : b.own ? 1 : 0));
    assert.deepEqual(seen, [
      { own: "read", i: { path: "a.txt" } },
      { claude: "Read", i: { file_path: path.join(root, "a.txt") } },
    ]);
  } finally {
    process.env.HOME = savedHome;
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
  }
});

test("Claude Code's argument names round-trip: every arg rt renames comes back as it was", () => {
  const root = "/work/project";
  const cases: Array<[string, Record<string, unknown>]> = [
    ["bash", { command: "ls", timeout: 2.5, background: true, working_dir: "src" }],
    ["read", { path: "src/a.ts", offset: 3, limit: 10 }],
    ["edit_file", { path: "a", old: "x", new: "y" }],
    ["grep", { pattern: "x", ignore_case: true, context_after: 2, limit: 5, path: "src", show_line_numbers: true }],
    ["notebook_edit", { path: "n.ipynb", cell_id: "c1", new_source: "print(1)" }],
    ["ls", { path: "src" }],
    ["bash_output", { id: "b1" }],
    ["mcp__fs__read_file", { path: "x" }],
  ];
  for (const [tool, args] of cases)
    assert.deepEqual(
      fromClaudeInput(tool, toClaudeInput(tool, args, root) as Record<string, unknown>, root),
      args,
      tool,
    );
  assert.deepEqual(toClaudeInput("grep", { ignore_case: true, context: 1 }, root), { "-i": true, "-C": 1 });
  assert.deepEqual(toClaudeInput("ls", { path: "src" }, root), { path: "/work/project/src" });
});

test("the full-screen UI shows a hook's warning as an error line, an ordinary notice dimmed", () => {
  const c = new Conversation(() => 0);
  c.apply({ type: "notice", message: "PreToolUse hook `x` failed (exit code 1)", level: "warning" });
  c.apply({ type: "notice", message: "plan accepted" });
  const lines = conversationLines(
    c,
    { palette: bare, markdown: (t) => t, wrap: (t) => [t] },
    { width: 100, expanded: false, now: 0 },
  );
  assert.ok(
    lines.some((l) => l === "rt: PreToolUse hook `x` failed (exit code 1)"),
    lines.join("\n"),
  );
  assert.ok(
    lines.some((l) => l === "[rt] plan accepted"),
    lines.join("\n"),
  );
});

test("a subagent runs SubagentStop where the session runs Stop, and no UserPromptSubmit of its own", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const home = tempTree({}, "rt-home-");
  const log = path.join(home, "events.txt");
  const note = { type: "command", command: `jq -r .hook_event_name >> ${log}` };
  fs.mkdirSync(path.join(home, ".claude"));
  fs.writeFileSync(
    path.join(home, ".claude/settings.json"),
    JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [note] }], Stop: [{ hooks: [note] }], SubagentStop: [{ hooks: [note] }] },
    }),
  );
  const savedHome = process.env.HOME;
  const savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = tempTree({}, "rt-config-");
  try {
    ollama.server.script(
      reply.toolCall("task", { description: "look", prompt: "Say done.", subagent_type: "general-purpose" }),
      reply.text("sub done"),
      reply.text("ok"),
    );
    const agent = makeAgent(root, ollama.server);
    const events = await collect(agent.run("go"));
    agent.close();
    assert.equal(events[events.length - 1].type, "turn_complete");
    assert.deepEqual(fs.readFileSync(log, "utf8").split("\n").filter(Boolean), [
      "UserPromptSubmit",
      "SubagentStop",
      "Stop",
    ]);
  } finally {
    process.env.HOME = savedHome;
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
  }
});
