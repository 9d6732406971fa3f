// Plan mode offers the read-only tools and nothing that needs a shell: not
// bash, and so not bash_output or kill_shell either (they only follow a
// background bash); the other modes offer all three.
import { test } from "node:test";
import assert from "node:assert/strict";
import { sessionToolSet } from "../../src/agent/toolSet.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { tempTree } from "../helpers.ts";

test("plan mode offers neither bash nor its follow-ups bash_output and kill_shell; ask mode offers all three", () => {
  const workspace = createWorkspace({ root: tempTree({}), env: { ...process.env, RT_ROOT: undefined } });
  // Every tool at once (no deferral behind tool_search), so that what each mode allows is all in the list.
  const names = (approval: "plan" | "ask") =>
    sessionToolSet({ workspace, approval, deferTools: false }).offered.map((t) => t.name);
  const plan = names("plan");
  assert.ok(plan.includes("read") && plan.includes("grep"), plan.join(","));
  for (const n of ["bash", "bash_output", "kill_shell", "edit", "write"])
    assert.ok(!plan.includes(n), `plan mode offers ${n}`);
  const ask = names("ask");
  for (const n of ["bash", "bash_output", "kill_shell"]) assert.ok(ask.includes(n), `ask mode lacks ${n}`);
});
