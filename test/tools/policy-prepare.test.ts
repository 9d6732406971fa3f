// policy.prepareCall checks a call without running it (the tool found once,
// the arguments validated with their aliases, the profile and kill switches
// applied); runPreparedCall runs only what prepareCall accepted.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool, prepareCall, runPreparedCall, type ToolLookup } from "../../src/tools/policy.ts";
import { REGISTRY_LOOKUP, findTool, toolNames } from "../../src/tools/registry.ts";
import { tempTree } from "../helpers.ts";

test("unknown tool, invalid arguments, profile and kill switch: refusals, the same ones callTool returns, nothing runs", async () => {
  const root = tempTree({ "a.txt": "keep\n" });
  const dev = createWorkspace({ root, env: {} });
  const readOnly = createWorkspace({ root, env: {}, profile: "safe-read-only" });
  const switchedOff = createWorkspace({ root, env: { RT_ENABLE_SWE: "0" } });
  const cases = [
    {
      ws: dev,
      name: "nope",
      args: {},
      type: "usage",
      error: new RegExp(`unknown tool "nope"; available tools: ${toolNames().join(", ")}`),
      tool: undefined,
    },
    {
      ws: dev,
      name: "edit",
      args: { path: "a.txt", old_string: 1, new_string: "x" },
      type: "usage",
      error: /invalid arguments for edit: old_string/,
      tool: "edit",
    },
    {
      ws: dev,
      name: "read",
      args: { path: "a.txt", file_path: "b.txt" },
      type: "usage",
      error: /file_path is another name for path/,
      tool: "read",
    },
    {
      ws: readOnly,
      name: "str_replace",
      args: { path: "a.txt", old_string: "keep", new_string: "lost" },
      type: "denied",
      error: /profile is safe-read-only/,
      tool: "edit",
    },
    {
      ws: switchedOff,
      name: "write",
      args: { path: "a.txt", content: "lost\n" },
      type: "denied",
      error: /RT_ENABLE_SWE=0/,
      tool: "write",
    },
  ];
  for (const c of cases) {
    const p = prepareCall(c.ws, c.name, c.args, REGISTRY_LOOKUP);
    assert.equal(p.ok, false, c.name);
    if (p.ok) continue;
    assert.equal(p.tool?.name, c.tool, c.name);
    assert.equal(p.refusal.success, false);
    assert.equal(p.refusal.error_type, c.type, c.name);
    assert.match(p.refusal.error!, c.error);
    assert.deepEqual(await callTool(c.ws, c.name, c.args), p.refusal, `callTool and prepareCall disagree on ${c.name}`);
  }
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "keep\n");
});

test("a prepared call carries canonical arguments and runs without finding the tool again", async () => {
  const root = tempTree({ "a.txt": "one\ntwo\nthree\n" });
  const ws = createWorkspace({ root, env: {} });
  let lookups = 0;
  const counting: ToolLookup = { find: (n) => (lookups++, findTool(n)), names: toolNames };
  const p = prepareCall(ws, "read_file", { file_path: "a.txt", start_line: 2, end_line: 2 }, counting);
  assert.ok(p.ok);
  assert.equal(p.call.tool.name, "read");
  assert.equal(p.call.args.path, "a.txt");
  assert.equal("file_path" in p.call.args, false);
  assert.ok(Object.isFrozen(p.call));
  const r = await runPreparedCall(p.call);
  assert.equal(r.success, true);
  assert.match(r.output, /two/);
  assert.doesNotMatch(r.output, /three/);
  assert.equal(lookups, 1);
});

test("runPreparedCall refuses a call prepareCall did not make (no way around the checks)", async () => {
  const root = tempTree({ "a.txt": "keep\n" });
  const ws = createWorkspace({ root, env: {}, profile: "safe-read-only" });
  const forged = { tool: findTool("write")!, args: { path: "a.txt", content: "lost\n" }, workspace: ws };
  await assert.rejects(runPreparedCall(forged), /only a call returned by prepareCall/);
  const copied = prepareCall(
    createWorkspace({ root, env: {} }),
    "write",
    { path: "b.txt", content: "x\n" },
    REGISTRY_LOOKUP,
  );
  assert.ok(copied.ok);
  await assert.rejects(runPreparedCall({ ...copied.call, workspace: ws }), /only a call returned by prepareCall/);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "keep\n");
  assert.equal(fs.existsSync(path.join(root, "b.txt")), false);
});
