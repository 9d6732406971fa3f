import { test } from "node:test";
import assert from "node:assert/strict";
import { rt, tempTree } from "../helpers.ts";

test("rt --help lists every command and exits 0", async () => {
  const dir = tempTree();
  const r = await rt(["--help"], { cwd: dir });
  assert.equal(r.code, 0);
  for (const c of ["rt open", "rt scroll", "rt read", "rt find", "rt grep", "rt grep-file", "rt ls", "rt call"])
    assert.match(r.stdout, new RegExp(c));
});

test("unknown command: one line, exit 2", async () => {
  const dir = tempTree();
  const r = await rt(["frobnicate"], { cwd: dir });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'rt: unknown command "frobnicate"; rt --help lists the commands\n');
});
