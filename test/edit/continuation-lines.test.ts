// A function appended after a line quoted without its indentation, below a
// signature continued over two lines: the continuation line's alignment is not
// a level, so the caller's `def` at column 0 stays at column 0 (it was nested
// inside the function above, after its return: valid Python that changed what
// the code means). Found by bench/edit-robustness on urllib/parse.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { tempTree } from "../helpers.ts";

const PRELUDE = [
  '"""Module docstring with prose brackets that do not balance: (Hyrum\'s Law), 1) first."""',
  "",
  "CHOICES = ['a', 'b',",
  "           'c']",
  "",
];

for (const [name, signature] of [
  ["a signature over two lines", ["def encode(obj, encoding='ascii',", "                errors='strict'):"]],
  [
    "a signature over three lines, closing alone",
    ["def encode(", "        obj, encoding='ascii',", "        errors='strict'):"],
  ],
  ["a one-line signature (control)", ["def encode(obj, encoding='ascii', errors='strict'):"]],
] as const) {
  test(`a def appended at column 0 after a fragment quoted without indentation stays top-level: ${name}`, async () => {
    const lines = [
      ...PRELUDE,
      ...signature,
      "    return obj.encode(encoding, errors)",
      "",
      "def other():",
      "    return 1",
      "",
    ];
    const root = tempTree({ "m.py": lines.join("\n") });
    const ws = createWorkspace({ root });
    await callTool(ws, "read", { path: "m.py" });
    const r = await callTool(ws, "edit", {
      path: "m.py",
      old_string: "return obj.encode(encoding, errors)",
      new_string: "return obj.encode(encoding, errors)\n\ndef helper():\n    return 2",
    });
    assert.equal(r.success, true, r.error);
    const after = fs.readFileSync(path.join(root, "m.py"), "utf8");
    assert.match(after, /\n {4}return obj\.encode\(encoding, errors\)\n\ndef helper\(\):\n {4}return 2\n/, after);
  });
}

test("content inserted right after a signature continued over two lines goes one level into the function, not past the continuation's alignment", async () => {
  const lines = [
    ...PRELUDE,
    "def encode(obj, encoding='ascii',",
    "           errors='strict'):",
    "    pass",
    "",
    "def other(x):",
    "    if x:",
    "        return 1",
    "    return 2",
    "",
  ];
  const root = tempTree({ "m.py": lines.join("\n") });
  const ws = createWorkspace({ root });
  await callTool(ws, "read", { path: "m.py" });
  const at = PRELUDE.length + 2;
  const r = await callTool(ws, "edit_lines", {
    path: "m.py",
    command: "insert",
    insert_line: at,
    new_content: "obj = str(obj)",
  });
  assert.equal(r.success, true, r.error);
  const after = fs.readFileSync(path.join(root, "m.py"), "utf8").split("\n");
  assert.equal(after[at], "    obj = str(obj)");
  assert.equal(after[at + 1], "    pass");
});
