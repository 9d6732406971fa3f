// Files over 8 MB (read through the line index, without line IDs) stay
// editable, and a re-read resets what rt remembers the caller saw, as it does
// for small files: after a change, a plain line number the caller saw before
// is refused as stale until it looks again; once it has, the numbers it now
// sees are accepted. The bytes written are checked against the expected text
// (not timing: bench/ measures that).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { LARGE_FILE_BYTES } from "../../src/base/limits.ts";
import { tempTree } from "../helpers.ts";

function bigPython(): string[] {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size <= LARGE_FILE_BYTES + 512 * 1024; i++) {
    const l = `value_${i} = ${i} * 2  # line ${i} of generated data`;
    lines.push(l);
    size += l.length + 1;
  }
  return lines;
}

test("a file over 8 MB: edits are exact, a re-read after a change resets the lines remembered as shown", async () => {
  const expected = bigPython();
  const root = tempTree({ "big.py": `${expected.join("\n")}\n` });
  const file = path.join(root, "big.py");
  assert.ok(fs.statSync(file).size > LARGE_FILE_BYTES);
  const ws = createWorkspace({ root, env: {} });
  const call = (tool: string, args: Record<string, unknown>) => callTool(ws, tool, args);
  const check = () => assert.equal(fs.readFileSync(file, "utf8"), `${expected.join("\n")}\n`);

  // Shown through the line index.
  assert.equal((await call("open", { path: "big.py:100" })).success, true);
  // Two lines inserted after line 10: the numbers below shift by two.
  const ins = await call("edit_lines", {
    path: "big.py",
    command: "insert",
    insert_line: 10,
    new_content: "inserted_a = 1\ninserted_b = 2",
  });
  assert.equal(ins.success, true, ins.error);
  assert.match(ins.output, /note: syntax not checked: big\.py is .*rt checks the syntax of files up to/);
  expected.splice(10, 0, "inserted_a = 1", "inserted_b = 2");
  check();
  // Line 500 as the caller saw it is now line 502: the old number is refused, nothing written.
  const stale = await call("edit_lines", { path: "big.py", command: "replace", start_line: 500, new_content: "x = 0" });
  assert.equal(stale.success, false);
  assert.match(stale.error!, /line 500 is ambiguous: big\.py changed since you last viewed it/);
  check();
  // Re-read: the numbers it shows are current, and accepted.
  assert.equal((await call("open", { path: "big.py:500" })).success, true);
  const fresh = await call("edit_lines", {
    path: "big.py",
    command: "replace",
    start_line: 500,
    new_content: "line_500_now = True",
  });
  assert.equal(fresh.success, true, fresh.error);
  expected[499] = "line_500_now = True";
  check();

  // Another program prepends a line: the caller's numbers are stale again...
  expected.unshift("# header added by another program");
  fs.writeFileSync(file, `${expected.join("\n")}\n`);
  const outside = await call("edit_lines", {
    path: "big.py",
    command: "replace",
    start_line: 600,
    new_content: "y = 0",
  });
  assert.equal(outside.success, false);
  assert.match(outside.error!, /line 600 is ambiguous/);
  check();
  // ... until it reads the file again (read, as well as open).
  assert.equal((await call("read", { path: "big.py", offset: 590, limit: 20 })).success, true);
  const after = await call("edit_lines", {
    path: "big.py",
    command: "replace",
    start_line: 600,
    new_content: "line_600_now = True",
  });
  assert.equal(after.success, true, after.error);
  expected[599] = "line_600_now = True";
  check();

  // Several changes, by line ID and number, and a string edit near the end.
  const ids = await call("edit_lines", {
    path: "big.py",
    changes: [
      { line_id: 3, new_content: "third = 3" },
      { start_line_id: expected.length - 1, end_line_id: expected.length, new_content: "tail = True" },
    ],
  });
  assert.equal(ids.success, true, ids.error);
  expected[2] = "third = 3";
  expected.splice(expected.length - 2, 2, "tail = True");
  check();
  const str = await call("edit", {
    path: "big.py",
    old_string: "value_100000 = 100000 * 2",
    new_string: "value_100000 = 0",
  });
  assert.equal(str.success, true, str.error);
  expected[expected.indexOf("value_100000 = 100000 * 2  # line 100000 of generated data")] =
    "value_100000 = 0  # line 100000 of generated data";
  check();
  // Undo walks back through the journal, byte for byte.
  const undo = await call("undo_edit", { path: "big.py" });
  assert.equal(undo.success, true, undo.error);
  expected[expected.indexOf("value_100000 = 0  # line 100000 of generated data")] =
    "value_100000 = 100000 * 2  # line 100000 of generated data";
  check();
});

test("a file over 8 MB edited by rt and re-read: the numbers shown are current at once (IDs of the version rt wrote)", async () => {
  const expected = bigPython();
  const root = tempTree({ "big.py": `${expected.join("\n")}\n` });
  const ws = createWorkspace({ root, env: {} });
  const call = (tool: string, args: Record<string, unknown>) => callTool(ws, tool, args);
  await call("open", { path: "big.py:1" });
  assert.equal(
    (await call("edit_lines", { path: "big.py", command: "delete", start_line: 5, end_line: 6 })).success,
    true,
  );
  expected.splice(4, 2);
  // A new process (nothing in memory), re-reading.
  const ws2 = createWorkspace({ root, env: {} });
  assert.equal((await callTool(ws2, "open", { path: "big.py:1000" })).success, true);
  const r = await callTool(ws2, "edit_lines", {
    path: "big.py",
    command: "replace",
    start_line: 1000,
    new_content: "thousand = 1",
  });
  assert.equal(r.success, true, r.error);
  expected[999] = "thousand = 1";
  assert.equal(fs.readFileSync(path.join(root, "big.py"), "utf8"), `${expected.join("\n")}\n`);
});
