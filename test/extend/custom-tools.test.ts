// Custom tools as data (issue 18): a TODO-counting script defined in
// .rt/tools/ reached from every face (rt tool, rt call, the MCP face through the
// SDK's client, the agent with the scripted model), a writing tool refused in
// safe-read-only, invalid definitions reported by file and field, untrusted
// projects' tools never loaded, and the argument invariants (never through a
// shell, JSON on stdin equal to the arguments, RT_ARG_ variables).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, soak, tempTree, treeHash } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { connectStdio, call } from "../mcp/helpers.ts";
import { startLlmServer, reply, type LlmServer } from "../llm-server.ts";
import { makeAgent, collect, ofType, last } from "../agent/harness.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { ensureCustomTools, forgetCustomTools, checkDefinition } from "../../src/extensions/customTools.ts";
import { callTool } from "../../src/tools/policy.ts";

const COUNT_TODOS_PY = `import json, os, sys
args = json.load(sys.stdin)
root = args.get("path", ".")
n = 0
for d, dirs, files in os.walk(root):
    dirs[:] = [x for x in dirs if x not in (".rt", ".git")]
    for f in files:
        with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
            n += sum(line.count("TODO") for line in fh)
print(f"{n} TODO(s) under {root}")
`;

const COUNT_TODOS_YAML = `name: count_todos
description: Count TODO markers in the files under a directory.
parameters:
  type: object
  properties:
    path: {type: string, description: Directory to search}
  required: [path]
  additionalProperties: false
command: [python3, .rt/tools/count_todos.py]
read_only: true
timeout: 20
tests:
  - args: {path: src}
    output_contains: "3 TODO"
`;

const STAMP_JSON = JSON.stringify({
  name: "stamp",
  description: "Write a stamp file.",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  command: ["sh", "-c", 'printf "%s" "$RT_ARG_TEXT" > stamp.txt'],
  read_only: false,
});

function project(extra: Record<string, string> = {}): string {
  return tempTree({
    "src/a.py": "# TODO one\nx = 1  # TODO two\n",
    "src/b/c.txt": "TODO three\n",
    "README.md": "no markers here\n",
    ".rt/tools/count_todos.py": COUNT_TODOS_PY,
    ".rt/tools/count_todos.yaml": COUNT_TODOS_YAML,
    ".rt/tools/stamp.json": STAMP_JSON,
    ...extra,
  });
}

let configHome: string;
const env = () => ({ XDG_CONFIG_HOME: configHome, HOME: configHome });
async function trusted(root: string): Promise<void> {
  const r = await rt(["--root", root, "trust"], { cwd: root, env: env() });
  assert.equal(r.code, 0, r.stderr);
}

before(() => {
  configHome = tempTree({}, "rt-config-");
});

test("rt tool and rt call run the TODO counter with its arguments as options or JSON", async () => {
  const root = project();
  await trusted(root);
  const a = await rtMain(["tool", "count_todos", "--path", "src"], { cwd: root, env: env() });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, "3 TODO(s) under src\n");
  const b = await rtMain(["call", "count_todos", "--args", '{"path":"src/b"}'], { cwd: root, env: env() });
  const res = JSON.parse(b.stdout);
  assert.equal(res.success, true);
  assert.equal(res.output, "1 TODO(s) under src/b\n");
  assert.equal(res.exit_code, 0);
  // Arguments are checked against the definition's JSON Schema before anything runs.
  const bad = await rtMain(["call", "count_todos", "--args", '{"path":"src","extra":1}'], { cwd: root, env: env() });
  assert.equal(bad.code, 2);
  assert.match(JSON.parse(bad.stdout).error, /additional properties/);
  const missing = await rtMain(["tool", "count_todos"], { cwd: root, env: env() });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /path: must have required property 'path'/);
  // rt tools lists it after the built-in tools.
  const list = await rtMain(["tools", "--json"], { cwd: root, env: env() });
  const names = JSON.parse(list.stdout).map((t: { name: string }) => t.name);
  assert.equal(names.at(-2), "count_todos");
  assert.ok(names.includes("stamp"));
});

test("a project's tools are not loaded before the folder is trusted", async () => {
  const root = project();
  const r = await rtMain(["tool", "count_todos", "--path", "src"], { cwd: root, env: env() });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown tool "count_todos"/);
  const list = await rtMain(["tools", "--json"], { cwd: root, env: env() });
  assert.ok(!JSON.parse(list.stdout).some((t: { name: string }) => t.name === "count_todos"));
  const check = await rtMain(["tools", "--check"], { cwd: root, env: env() });
  assert.match(check.stdout, /not loaded: 2 project tool file\(s\).*not trusted/);
});

test("a writing tool runs in dev, is refused in safe-read-only with nothing changed, and a read-only one runs sandboxed there", async () => {
  const root = project();
  await trusted(root);
  const before = treeHash(root);
  const refused = await rtMain(["--profile", "safe-read-only", "call", "stamp", "--args", '{"text":"hi"}'], {
    cwd: root,
    env: env(),
  });
  assert.equal(refused.code, 1);
  const r = JSON.parse(refused.stdout);
  assert.equal(r.error_type, "denied");
  assert.match(r.error, /stamp changes files, and the profile is safe-read-only/);
  assert.equal(treeHash(root), before);
  const sandboxed = await rtMain(["--profile", "safe-read-only", "call", "count_todos", "--args", '{"path":"src"}'], {
    cwd: root,
    env: env(),
  });
  const s = JSON.parse(sandboxed.stdout);
  assert.equal(s.success, true, sandboxed.stdout);
  assert.equal(s.sandboxed, true);
  const ran = await rtMain(["tool", "stamp", "--text", "hello; rm -rf / $(id)"], { cwd: root, env: env() });
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(fs.readFileSync(path.join(root, "stamp.txt"), "utf8"), "hello; rm -rf / $(id)");
});

test("invalid definitions are reported with file and field, skipped, and never stop rt", async () => {
  const root = project({
    ".rt/tools/bad-name.yaml": 'name: Bad Name\ndescription: x\ncommand: ["true"]\nread_only: true\n',
    ".rt/tools/no-ro.json": JSON.stringify({ name: "no_ro", description: "x", command: ["true"] }),
    ".rt/tools/bad-schema.yaml":
      'name: bad_schema\ndescription: x\nparameters: {type: object, properties: {n: {type: integr}}}\ncommand: ["true"]\nread_only: true\n',
    ".rt/tools/bad-test.yaml":
      'name: bad_test\ndescription: x\nparameters: {type: object, properties: {n: {type: integer}}}\ncommand: ["true"]\nread_only: true\ntests: [{args: {n: nope}}]\n',
    ".rt/tools/clash.yaml": 'name: grep\ndescription: x\ncommand: ["true"]\nread_only: true\n',
    ".rt/tools/broken.yaml": "name: [unclosed\n",
    ".rt/tools/typo.yaml": 'name: typo\ndescription: x\ncommand: ["true"]\nread_only: true\ncomand: [x]\n',
  });
  await trusted(root);
  const check = await rtMain(["tools", "--check", "--json"], { cwd: root, env: env() });
  assert.equal(check.code, 1);
  const report = JSON.parse(check.stdout);
  const byFile = (name: string) => report.problems.filter((p: { file: string }) => path.basename(p.file) === name);
  assert.equal(byFile("bad-name.yaml")[0].field, "name");
  assert.equal(byFile("no-ro.json")[0].field, "read_only");
  assert.equal(byFile("bad-schema.yaml")[0].field, "parameters");
  assert.equal(byFile("bad-test.yaml")[0].field, "tests.0.args");
  assert.match(byFile("clash.yaml")[0].message, /built-in tool/);
  assert.match(byFile("broken.yaml")[0].message, /not valid YAML/);
  assert.match(byFile("typo.yaml")[0].message, /unknown field\(s\) comand/);
  // The valid ones still load and pass their tests.
  assert.deepEqual(report.tools.map((t: { name: string }) => t.name).sort(), ["count_todos", "stamp"]);
  assert.ok(
    report.tools
      .find((t: { name: string }) => t.name === "count_todos")
      .tests.every((t: { passed: boolean }) => t.passed),
  );
  // Other faces start and work; the problems are named on stderr.
  const r = await rtMain(["tool", "count_todos", "--path", "src"], { cwd: root, env: env() });
  assert.equal(r.code, 0);
  assert.match(r.stderr, /skipped 7 problem\(s\) in custom tool definitions/);
  // rt open never reads the definitions at all.
  const o = await rtMain(["open", "README.md"], { cwd: root, env: env() });
  assert.equal(o.code, 0);
  assert.equal(o.stderr, "");
});

test("planted files: a symlinked tools directory and a FIFO are refused, not followed", async () => {
  const outside = tempTree({
    "evil.yaml": "name: evil\ndescription: x\ncommand: [touch, /tmp/evil]\nread_only: true\n",
  });
  const root = tempTree({ "README.md": "x\n" });
  fs.mkdirSync(path.join(root, ".rt"));
  fs.symlinkSync(outside, path.join(root, ".rt", "tools"));
  await trusted(root);
  const check = await rtMain(["tools", "--check", "--json"], { cwd: root, env: env() });
  const report = JSON.parse(check.stdout);
  assert.equal(report.tools.length, 0);
  assert.match(report.problems[0].message, /symbolic link/);
});

test("invariant: the program gets exactly the arguments, as JSON on stdin and RT_ARG_ variables, never through a shell", async () => {
  const root = tempTree({
    ".rt/tools/echo.json": JSON.stringify({
      name: "echo_args",
      description: "Echo arguments.",
      parameters: {
        type: "object",
        properties: {
          s: { type: "string" },
          n: { type: "number" },
          list: { type: "array", items: { type: "string" } },
        },
        additionalProperties: false,
      },
      command: [
        "python3",
        "-S",
        "-c",
        "import json,os,sys; print(json.dumps({'stdin': json.load(sys.stdin), 's': os.environ.get('RT_ARG_S'), 'list': os.environ.get('RT_ARG_LIST')}))",
      ],
      read_only: true,
    }),
  });
  await trusted(root);
  const ws = createWorkspace({ root, env: { ...process.env, ...env() } });
  forgetCustomTools();
  const load = await ensureCustomTools(ws);
  assert.deepEqual(load.problems, []);
  const nasty = [
    "plain",
    "$(touch pwned)",
    "`id`",
    "a'b\"c",
    "; rm -rf .",
    "x\ny",
    "ünï €",
    "--flag",
    "*",
    "$HOME",
    "\\\\",
  ];
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // 12 generated calls in `npm test`, 40 in the soak run (each starts the program).
  for (let i = 0; i < soak(12, 40); i++) {
    const s = nasty[Math.floor(rand() * nasty.length)] + nasty[Math.floor(rand() * nasty.length)];
    const list = Array.from({ length: Math.floor(rand() * 3) }, () => nasty[Math.floor(rand() * nasty.length)]);
    const args = { s, n: Math.round(rand() * 1000) / 10, list };
    const r = await callTool(ws, "echo_args", args);
    assert.equal(r.success, true, r.error);
    const seen = JSON.parse(r.output);
    assert.deepEqual(seen.stdin, args);
    assert.equal(seen.s, s);
    assert.equal(seen.list, JSON.stringify(list));
  }
  assert.ok(!fs.existsSync(path.join(root, "pwned")));
  forgetCustomTools();
});

test("definitions check every test's arguments against the parameters", async () => {
  const c = await checkDefinition(
    "/x/t.yaml",
    'name: t\ndescription: d\nparameters: {type: object, properties: {k: {enum: [a, b]}}}\ncommand: ["true"]\nread_only: true\ntests: [{args: {k: a}}, {args: {k: c}}]\n',
    "user",
  );
  assert.equal(c.ok, false);
  assert.deepEqual(!c.ok && c.problems.map((p) => p.field), ["tests.1.args"]);
});

test("output over the cap keeps head and tail and saves the whole under .rt/shell; a timeout kills the tool", async () => {
  const root = tempTree({
    ".rt/tools/big.yaml":
      "name: big\ndescription: d\ncommand: [python3, -c, \"print('x' * 200000)\"]\nread_only: true\n",
    ".rt/tools/slow.yaml": "name: slow\ndescription: d\ncommand: [sleep, '30']\nread_only: true\ntimeout: 1\n",
  });
  await trusted(root);
  const big = JSON.parse((await rtMain(["call", "big", "--args", "{}"], { cwd: root, env: env() })).stdout);
  assert.equal(big.truncated, true);
  assert.ok(big.output.length < 60_000);
  const saved = path.join(root, big.saved_output[0]);
  assert.equal(fs.readFileSync(saved, "utf8").length, 200_001);
  const t0 = Date.now();
  const slow = JSON.parse((await rtMain(["call", "slow", "--args", "{}"], { cwd: root, env: env() })).stdout);
  assert.equal(slow.success, false);
  assert.equal(slow.timed_out, true);
  assert.ok(Date.now() - t0 < 15_000);
});

test("the MCP face lists and calls the custom tool (SDK client over stdio)", async () => {
  const root = project();
  await trusted(root);
  const s = await connectStdio(root, [], { env: env() });
  try {
    const { tools } = await s.client.listTools();
    const entry = tools.find((t) => t.name === "count_todos");
    assert.ok(entry);
    assert.equal(entry!.annotations?.readOnlyHint, true);
    assert.deepEqual(entry!.inputSchema.required, ["path"]);
    const r = await call(s.client, "count_todos", { path: "src" });
    assert.equal(r.isError, false);
    assert.match(r.text, /3 TODO\(s\) under src/);
  } finally {
    await s.close();
  }
});

let server: LlmServer;
before(async () => {
  server = await startLlmServer();
});
after(async () => {
  await server.close();
});

test("the agent is offered the custom tool and calls it (scripted model)", async () => {
  const root = project();
  await trusted(root);
  process.env.XDG_CONFIG_HOME = configHome;
  forgetCustomTools();
  try {
    await ensureCustomTools(createWorkspace({ root, env: { ...process.env } }));
    server.reset();
    server.script(reply.toolCall("count_todos", { path: "src" }), reply.text("There are 3 TODOs."));
    const agent = makeAgent(root, server);
    const events = await collect(agent.run("how many TODOs?"));
    assert.equal(last(events).type, "turn_complete");
    const offered = server.completions[0].body.tools.map((t: { function: { name: string } }) => t.function.name);
    assert.ok(offered.includes("count_todos"));
    const end = ofType(events, "tool_end")[0];
    assert.equal(end.success, true);
    const toolMsg = server.completions[1].body.messages.find((m: { role: string }) => m.role === "tool");
    assert.match(toolMsg.content, /3 TODO\(s\) under src/);
    agent.close();
  } finally {
    forgetCustomTools();
    delete process.env.XDG_CONFIG_HOME;
  }
});
