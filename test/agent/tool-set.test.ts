// What the agent offers its model: only tools it can use (no editing tools in
// the safe-read-only profile, no SWE tools under RT_ENABLE_SWE=0), and with
// `agent.tools: "lean"` a short set with one-sentence descriptions. Checked on
// the requests the scripted model server received from the built CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { reply } from "../llm-server.ts";
import { tempTree, rt } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";
import { scriptedOllama } from "./harness.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import { LEAN_TOOLS } from "../../src/agent/toolSet.ts";

const ollama = scriptedOllama();
const MODEL = ["--model", "ollama/test-model"];

interface OfferedTool {
  function: { name: string; description: string; parameters: { properties?: Record<string, unknown> } };
}

function offered(i = 0): OfferedTool["function"][] {
  return (ollama.server.completions[i].body.tools as OfferedTool[]).map((t) => t.function);
}

const EDITING = TOOLS.filter((t) => t.editing).map((t) => t.name);

test("safe-read-only: the model is not offered any editing tool, and a write it calls anyway changes nothing", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  ollama.server.script(
    reply.toolCall("write", { path: "b.txt", content: "new\n" }),
    reply.toolCall("edit", { path: "a.txt", old_string: "x", new_string: "y" }),
    reply.text("done"),
  );
  const r = await rt(["run", ...MODEL, "--approval", "auto", "--profile", "safe-read-only", "change things"], {
    cwd: root,
    env: ollama.env(),
  });
  assert.equal(r.code, 0, r.stderr);
  const names = offered().map((t) => t.name);
  for (const e of EDITING) assert.ok(!names.includes(e), `${e} offered in safe-read-only`);
  // What it can use is there: reading, searching, and bash (in the read-only sandbox).
  for (const n of ["read", "open", "grep", "find", "ls", "bash"]) assert.ok(names.includes(n), `${n} offered`);
  assert.equal(fs.existsSync(path.join(root, "b.txt")), false);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "x\n");
  // The refusal reached the model as a tool result naming the profile.
  const second = JSON.stringify(ollama.server.completions[1].body.messages);
  assert.match(second, /safe-read-only/);
  // The dev profile offers them.
  ollama.server.reset();
  ollama.server.script(reply.text("ok"));
  await rtMain(["run", ...MODEL, "--approval", "auto", "hello"], { cwd: root, env: ollama.env() });
  for (const e of ["edit", "edit_lines", "write"])
    assert.ok(
      offered().some((t) => t.name === e),
      `${e} offered in dev`,
    );
  // The rarely used ones are behind tool_search, which names them (docs/agent-costs.md).
  const search = offered().find((t) => t.name === "tool_search");
  for (const e of ["multi_edit", "undo_edit"])
    assert.ok(search?.description.includes(e), `${e} reachable through tool_search in dev`);
});

test("RT_ENABLE_SWE=0: no SWE tool (navigation, search, editing) is offered to the agent; read, ls and bash are", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  for (const switchName of ["RT_ENABLE_SWE", "RAGIX_ENABLE_SWE"]) {
    ollama.server.reset();
    ollama.server.script(reply.toolCall("grep", { pattern: "x" }), reply.text("done"));
    const r = await rtMain(["run", ...MODEL, "--approval", "auto", "look"], {
      cwd: root,
      env: ollama.env({ [switchName]: "0" }),
    });
    assert.equal(r.code, 0, r.stderr);
    const names = offered().map((t) => t.name);
    for (const n of ["open", "scroll", "find", "grep", "grep-file", "edit_range", "insert_at", "edit_file", ...EDITING])
      assert.ok(!names.includes(n), `${n} offered with ${switchName}=0`);
    for (const n of ["read", "ls", "bash"]) assert.ok(names.includes(n), `${n} offered with ${switchName}=0`);
    assert.match(
      JSON.stringify(ollama.server.completions[1].body.messages),
      new RegExp(`grep is disabled: ${switchName}=0`),
    );
  }
});

test('agent.tools "lean": the lean set with one-sentence descriptions, far fewer bytes per request; it applies from an untrusted project too', async () => {
  const root = tempTree({ "src/calc.py": "def add(a, b):\n    return a - b\n" });
  ollama.server.script(reply.text("ok"));
  await rtMain(["run", ...MODEL, "--approval", "auto", "hello"], { cwd: root, env: ollama.env() });
  const full = offered();
  const fullBytes = JSON.stringify(ollama.server.completions[0].body.tools).length;

  fs.mkdirSync(path.join(root, ".rt"), { recursive: true });
  fs.writeFileSync(path.join(root, ".rt", "config.json"), JSON.stringify({ agent: { tools: "lean" } }));
  ollama.server.reset();
  ollama.server.script(
    reply.toolCall("edit_lines", {
      path: "src/calc.py",
      command: "replace",
      start_line: 2,
      new_content: "    return a + b",
    }),
    reply.text("Fixed."),
  );
  const r = await rtMain(["run", ...MODEL, "--approval", "auto", "fix add"], { cwd: root, env: ollama.env() });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /ignoring .rt\/config.json/, "lean needs no trust");
  const lean = offered();
  assert.deepEqual(
    lean.map((t) => t.name),
    Object.keys(LEAN_TOOLS),
  );
  for (const t of lean) {
    const tool = TOOLS.find((x) => x.name === t.name)!;
    assert.equal(t.description, tool.brief, `${t.name}: the brief description`);
    assert.ok(!t.description.includes("\n") && t.description.length <= 160, `${t.name}: one short sentence`);
    assert.deepEqual(
      Object.keys(t.parameters.properties ?? {}),
      LEAN_TOOLS[t.name],
      `${t.name}: everyday arguments only`,
    );
  }
  const leanBytes = JSON.stringify(ollama.server.completions[0].body.tools).length;
  assert.ok(leanBytes * 4 < fullBytes, `lean ${leanBytes} bytes, default ${fullBytes}`);
  assert.ok(full.length > lean.length);
  // The lean tools work as the full ones do.
  assert.equal(fs.readFileSync(path.join(root, "src/calc.py"), "utf8"), "def add(a, b):\n    return a + b\n");

  // An unknown set is a configuration error naming the valid ones.
  fs.writeFileSync(path.join(root, ".rt", "config.json"), JSON.stringify({ agent: { tools: "tiny" } }));
  const configHome = tempTree({ "rt/config.json": JSON.stringify({ agent: { tools: "tiny" } }) }, "rt-config-");
  const bad = await rtMain(["run", ...MODEL, "hello"], { cwd: root, env: ollama.env({ XDG_CONFIG_HOME: configHome }) });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /agent\.tools/);
});

test("lean and safe-read-only together: the lean set minus the editing tools", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const configHome = tempTree({ "rt/config.json": JSON.stringify({ agent: { tools: "lean" } }) }, "rt-config-");
  ollama.server.script(reply.text("ok"));
  const r = await rtMain(["run", ...MODEL, "--approval", "auto", "--profile", "safe-read-only", "hello"], {
    cwd: root,
    env: ollama.env({ XDG_CONFIG_HOME: configHome }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    offered().map((t) => t.name),
    ["read", "find", "grep", "bash"],
  );
});

test("--seed-names offers the seed-compatibility tools directly; without it they are behind tool_search", async () => {
  const root = tempTree({ "a.txt": "x\n" });
  const seed = ["edit_range", "insert_at", "edit_file", "grep_file", "scroll"];
  ollama.server.script(reply.text("ok"));
  const r = await rtMain(["run", ...MODEL, "--approval", "auto", "--seed-names", "hello"], {
    cwd: root,
    env: ollama.env(),
  });
  assert.equal(r.code, 0, r.stderr);
  for (const n of seed)
    assert.ok(
      offered().some((t) => t.name === n),
      `${n} offered with --seed-names`,
    );
  ollama.server.reset();
  ollama.server.script(reply.text("ok"));
  await rtMain(["run", ...MODEL, "--approval", "auto", "hello"], { cwd: root, env: ollama.env() });
  const search = offered().find((t) => t.name === "tool_search");
  for (const n of seed) {
    assert.ok(!offered().some((t) => t.name === n), `${n} not offered by default`);
    assert.ok(search?.description.includes(n), `${n} named by tool_search`);
  }
});
