// Hooks (issue 18) with Claude Code's contract, each event run by the real
// agent loop against the scripted model: PreToolUse (block by exit 2, deny by
// JSON, change arguments, observe, matchers), PostToolUse (observe, block
// reason), UserPromptSubmit (block, add context), Stop (send the model back
// once), SessionStart (context), PreCompact (block, observe); failing and
// slow hooks reported as notices; project hooks only in trusted folders.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, tempTree } from "../helpers.ts";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { makeAgent, collect, ofType, last, requestText } from "../agent/harness.ts";
import { matches, parseHooks } from "../../src/extensions/hooks.ts";

let server: LlmServer;
let configHome: string;
let scripts: string;
let log: string;
const savedXdg = process.env.XDG_CONFIG_HOME;

before(async () => {
  server = await startLlmServer();
  scripts = tempTree({
    // Logs its stdin (one JSON line per call) to $HOOK_LOG.
    "observe.sh": 'cat >> "$HOOK_LOG"; echo >> "$HOOK_LOG"\n',
    "block.sh": 'cat > /dev/null; echo "no shell commands here" >&2; exit 2\n',
    "deny.py":
      'import json,sys\njson.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "secrets are off limits"}}))\n',
    "redirect.py":
      'import json,sys\nd=json.load(sys.stdin)\ninp=dict(d["tool_input"]); inp["path"]="public.txt"\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": inp}}))\n',
    "post-block.py":
      'import json,sys\nd=json.load(sys.stdin)\nprint(json.dumps({"decision": "block", "reason": "lint: output had %d chars" % len(d["tool_response"]["output"])}))\n',
    "context.sh": 'cat > /dev/null; echo "The project uses tabs."\n',
    "stop-once.py":
      'import json,sys\nd=json.load(sys.stdin)\nif not d["stop_hook_active"]:\n    print(json.dumps({"decision": "block", "reason": "run the tests before stopping"}))\n',
    "fail.sh": 'cat > /dev/null; echo "hook crashed" >&2; exit 1\n',
    "slow.sh": "sleep 20\n",
  });
});
after(async () => {
  await server.close();
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  delete process.env.HOOK_LOG;
});
beforeEach(() => {
  server.reset();
  configHome = tempTree({}, "rt-config-");
  process.env.XDG_CONFIG_HOME = configHome;
  log = path.join(tempTree({}, "rt-hooklog-"), "log.jsonl");
  process.env.HOOK_LOG = log;
});

const sh = (name: string) => `sh ${path.join(scripts, name)}`;
const py = (name: string) => `python3 ${path.join(scripts, name)}`;
function userHooks(hooks: Record<string, unknown>): void {
  fs.mkdirSync(path.join(configHome, "rt"), { recursive: true });
  fs.writeFileSync(path.join(configHome, "rt", "config.json"), JSON.stringify({ hooks }));
}
const logged = () =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const toolMessages = (i: number) =>
  server.completions[i].body.messages
    .filter((m: { role: string }) => m.role === "tool")
    .map((m: { content: string }) => m.content);

test("PreToolUse: exit 2 blocks with stderr as the reason; a matcher that does not fit runs nothing", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  userHooks({
    PreToolUse: [
      { matcher: "bash", hooks: [{ type: "command", command: sh("block.sh") }] },
      { matcher: "grep", hooks: [{ type: "command", command: sh("observe.sh") }] },
    ],
  });
  server.script(
    reply.toolCall("bash", { command: "touch made" }),
    reply.toolCall("read", { path: "a.txt" }),
    reply.text("ok"),
  );
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("go"));
  assert.equal(last(events).type, "turn_complete");
  assert.ok(!fs.existsSync(path.join(root, "made")));
  assert.equal(ofType(events, "tool_blocked")[0].name, "bash");
  assert.match(toolMessages(2)[0], /blocked by a PreToolUse hook: no shell commands here/);
  assert.match(toolMessages(2)[1], /x/);
  assert.deepEqual(logged(), []);
  agent.close();
});

test("PreToolUse: JSON deny, changed arguments (checked again by the policy), and observing the exact input", async () => {
  const root = tempTree({ "secret.txt": "TOKEN=1\n", "private.txt": "private\n", "public.txt": "public\n" });
  userHooks({
    PreToolUse: [
      {
        matcher: "read",
        hooks: [
          { type: "command", command: py("redirect.py") },
          { type: "command", command: sh("observe.sh") },
        ],
      },
      { matcher: "grep|find", hooks: [{ type: "command", command: py("deny.py") }] },
    ],
  });
  server.script(
    reply.toolCall("read", { path: "private.txt" }),
    reply.toolCall("grep", { pattern: "TOKEN" }),
    reply.text("ok"),
  );
  const agent = makeAgent(root, server, { approval: "ask" });
  const events = await collect(agent.run("read"));
  assert.equal(last(events).type, "turn_complete");
  const msgs = toolMessages(2);
  assert.match(msgs[0], /public/);
  assert.doesNotMatch(msgs[0], /private/);
  assert.match(msgs[1], /blocked by a PreToolUse hook: secrets are off limits/);
  const seen = logged();
  assert.equal(seen.length, 1);
  assert.equal(seen[0].hook_event_name, "PreToolUse");
  assert.equal(seen[0].tool_name, "read");
  assert.deepEqual(seen[0].tool_input, { path: "private.txt" });
  assert.equal(seen[0].cwd, root);
  assert.equal(seen[0].permission_mode, "default");
  assert.equal(typeof seen[0].session_id, "string");
  agent.close();
});

test("PreToolUse: changed arguments the tool refuses are refused, not run", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const bad = tempTree({
    "bad.py":
      'import json,sys\njson.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"updatedInput": {"path": 5}}}))\n',
  });
  userHooks({
    PreToolUse: [{ matcher: "read", hooks: [{ type: "command", command: `python3 ${path.join(bad, "bad.py")}` }] }],
  });
  server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ok"));
  const agent = makeAgent(root, server);
  await collect(agent.run("read"));
  assert.match(toolMessages(1)[0], /invalid arguments for read: path/);
  agent.close();
});

test("PostToolUse: observes the tool's response; decision block adds its reason for the model", async () => {
  const root = tempTree({ "a.txt": "hello\n" });
  userHooks({
    PostToolUse: [
      {
        matcher: "*",
        hooks: [
          { type: "command", command: sh("observe.sh") },
          { type: "command", command: py("post-block.py") },
        ],
      },
    ],
  });
  server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ok"));
  const agent = makeAgent(root, server);
  await collect(agent.run("read"));
  const seen = logged();
  assert.equal(seen[0].hook_event_name, "PostToolUse");
  assert.equal(seen[0].tool_response.success, true);
  assert.match(seen[0].tool_response.output, /hello/);
  assert.match(toolMessages(1)[0], /hello[\s\S]*\[hook\] lint: output had \d+ chars/);
  agent.close();
});

test("UserPromptSubmit: exit 2 blocks the prompt (nothing sent to the model); stdout adds context; SessionStart runs once", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  userHooks({
    UserPromptSubmit: [
      {
        hooks: [
          { type: "command", command: sh("context.sh") },
          { type: "command", command: sh("observe.sh") },
        ],
      },
    ],
    SessionStart: [{ hooks: [{ type: "command", command: sh("observe.sh") }] }],
  });
  server.script(reply.text("one"), reply.text("two"));
  const agent = makeAgent(root, server);
  await collect(agent.run("first prompt"));
  await collect(agent.run("second prompt"));
  assert.match(
    requestText(server.completions[0].body),
    /first prompt\n\n<hook-context>\nThe project uses tabs\.\n<\/hook-context>/,
  );
  const seen = logged();
  assert.deepEqual(
    seen.map((e) => e.hook_event_name),
    ["SessionStart", "UserPromptSubmit", "UserPromptSubmit"],
  );
  assert.equal(seen[0].source, "startup");
  assert.equal(seen[2].prompt, "second prompt");
  agent.close();

  userHooks({ UserPromptSubmit: [{ hooks: [{ type: "command", command: sh("block.sh") }] }] });
  server.reset();
  const blocked = makeAgent(root, server);
  const events = await collect(blocked.run("rm everything"));
  const end = last(events);
  assert.equal(end.type, "error");
  assert.equal(end.type === "error" && end.kind, "hook_blocked");
  assert.match(end.type === "error" ? end.message : "", /no shell commands here/);
  assert.equal(server.completions.length, 0);
  blocked.close();
});

test("Stop: a blocking hook sends the model back once with its reason; stop_hook_active lets it end", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  userHooks({
    Stop: [
      {
        hooks: [
          { type: "command", command: py("stop-once.py") },
          { type: "command", command: sh("observe.sh") },
        ],
      },
    ],
  });
  server.script(reply.text("done?"), reply.text("tests pass, done"));
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("work"));
  const end = last(events);
  assert.equal(end.type, "turn_complete");
  assert.equal(end.type === "turn_complete" && end.text, "tests pass, done");
  assert.match(requestText(server.completions[1].body), /\[Stop hook\] run the tests before stopping/);
  assert.deepEqual(
    logged().map((e) => e.stop_hook_active),
    [false, true],
  );
  agent.close();
});

test("PreCompact: observed with its trigger, and a blocking hook stops the compaction", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  userHooks({
    PreCompact: [
      {
        matcher: "manual",
        hooks: [
          { type: "command", command: sh("observe.sh") },
          { type: "command", command: sh("block.sh") },
        ],
      },
    ],
  });
  server.script(reply.text("hi"));
  const agent = makeAgent(root, server);
  await collect(agent.run("hello"));
  const events = await collect(agent.compact("keep it short"));
  assert.ok(!events.some((e) => e.type === "compact_start"));
  assert.match(
    ofType(events, "notice")
      .map((e) => e.message)
      .join("\n"),
    /PreCompact hook blocked the manual compaction: no shell commands here/,
  );
  const seen = logged();
  assert.equal(seen[0].trigger, "manual");
  assert.equal(seen[0].custom_instructions, "keep it short");
  agent.close();
});

test("a failing, a slow and a misconfigured hook are reported as notices, and the call still runs", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  userHooks({
    PreToolUse: [
      {
        matcher: "read",
        hooks: [
          { type: "command", command: sh("fail.sh") },
          { type: "command", command: sh("slow.sh"), timeout: 1 },
        ],
      },
    ],
    PostToolUse: [{ hooks: [{ type: "prompt", prompt: "x" }] }],
    Nonsense: [],
  });
  server.script(reply.toolCall("read", { path: "a.txt" }), reply.text("ok"));
  const agent = makeAgent(root, server);
  const events = await collect(agent.run("read"));
  const notices = ofType(events, "notice")
    .map((e) => e.message)
    .join("\n");
  assert.match(notices, /PreToolUse hook `sh .*fail\.sh` failed \(exit code 1\): hook crashed/);
  assert.match(notices, /timed out after 1 s/);
  assert.match(notices, /hooks\.Nonsense: unknown event/);
  assert.match(notices, /hooks\.PostToolUse\.0\.hooks\.0: must be \{"type": "command"/);
  assert.equal(ofType(events, "tool_end")[0].success, true);
  agent.close();
});

test("project hooks run only once the folder is trusted", async () => {
  const marker = path.join(tempTree({}, "rt-marker-"), "ran");
  const root = tempTree({
    ".rt/config.json": JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] },
    }),
  });
  fs.mkdirSync(path.join(configHome, "rt"), { recursive: true });
  server.script(reply.text("a"), reply.text("b"));
  const a = makeAgent(root, server);
  await collect(a.run("hi"));
  a.close();
  assert.ok(!fs.existsSync(marker));
  const t = await rt(["trust"], { cwd: root, env: { XDG_CONFIG_HOME: configHome } });
  assert.equal(t.code, 0, t.stderr);
  const b = makeAgent(root, server);
  await collect(b.run("hi"));
  b.close();
  assert.ok(fs.existsSync(marker));
});

test("matchers: exact names, alternatives, regular expressions, * and empty for all", () => {
  assert.ok(matches(undefined, "bash") && matches("", "x") && matches("*", "x"));
  assert.ok(matches("bash", "bash") && !matches("bash", "bash_output"));
  assert.ok(matches("edit|write", "write") && !matches("edit|write", "multi_edit"));
  assert.ok(matches("mcp__.*", "mcp__fs__read") && !matches("mcp__.*", "read"));
  assert.deepEqual(
    parseHooks({ PreToolUse: [{ matcher: "(", hooks: [{ type: "command", command: "x" }] }] }).problems.map(
      (p) => p.where,
    ),
    ["hooks.PreToolUse.0.matcher"],
  );
});
