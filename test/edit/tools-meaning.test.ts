// Issue 10 through the editing tools (in process, real files): re-indentation
// never changes which block a line belongs to, the caller's indentation comes
// first, elision markers never delete code, and write needs a read first.
// Written Python is checked with python3 itself where it is installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { tempTree, treeHash } from "../helpers.ts";

const hasPython = spawnSync("python3", ["-c", "0"]).status === 0;
function compiles(source: string): boolean {
  return (
    !hasPython ||
    spawnSync("python3", ["-c", "import sys; compile(sys.stdin.read(), 'f.py', 'exec')"], { input: source }).status ===
      0
  );
}

async function call(dir: string, tool: string, args: Record<string, unknown>) {
  const ws = createWorkspace({ root: dir, env: {} });
  const r = await callTool(ws, tool, args);
  return r as { success: boolean; output?: string; error?: string; [k: string]: unknown };
}

const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");

// ------------------------------------------------------------------ re-indentation (class 3)

test("3a: wrapping an indented line in a new `if` (written at column 0) inside an if/else keeps the else with its if", async () => {
  const src = "def f(name):\n    if ok:\n        x()\n        z()\n    else:\n        w()\n";
  for (const [tool, args] of [
    ["edit_lines", { path: "m.py", command: "replace", start_line: 4, end_line: 4, new_content: "if name:\n    z()" }],
    ["edit", { path: "m.py", old_string: "z()", new_string: "if name:\n    z()" }],
  ] as const) {
    const dir = tempTree({ "m.py": src });
    const r = await call(dir, tool, args);
    assert.ok(r.success, `${tool}: ${r.error}`);
    assert.equal(
      read(dir, "m.py"),
      "def f(name):\n    if ok:\n        x()\n        if name:\n            z()\n    else:\n        w()\n",
      tool,
    );
    assert.ok(compiles(read(dir, "m.py")));
  }
});

test("3b: appending `def helper():` at column 0 after a file that ends inside an except block keeps it at module level", async () => {
  const src = "try:\n    import fast\nexcept ImportError:\n    fast = None\n";
  const dir = tempTree({ "m.py": src });
  const r = await call(dir, "edit_lines", {
    path: "m.py",
    command: "insert",
    insert_line: 4,
    new_content: "\ndef helper():\n    return fast\n",
  });
  assert.ok(r.success, r.error);
  assert.equal(read(dir, "m.py"), src + "\ndef helper():\n    return fast\n");
});

test("3b through edit: a fragment followed by a new `def` at column 0 keeps the def at module level; `if` + body in a block is read relative", async () => {
  const src = "try:\n    import fast\nexcept ImportError:\n    fast = None\n";
  const dir = tempTree({ "m.py": src });
  const r = await call(dir, "edit", {
    path: "m.py",
    old_string: "fast = None",
    new_string: "fast = None\n\ndef helper():\n    return fast",
  });
  assert.ok(r.success, r.error);
  assert.equal(read(dir, "m.py"), src + "\ndef helper():\n    return fast\n");
});

test("3c: a new method after a method body lands in the class, not inside the method", async () => {
  const src = "class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n";
  const dir = tempTree({ "m.py": src });
  const r = await call(dir, "edit_lines", {
    path: "m.py",
    command: "insert",
    insert_line: 3,
    new_content: "\n    def n(self):\n        return 3",
  });
  assert.ok(r.success, r.error);
  assert.equal(
    read(dir, "m.py"),
    "class A:\n    def a(self):\n        return 1\n\n    def n(self):\n        return 3\n\n    def b(self):\n        return 2\n",
  );
});

test("3d: old_string unindented, new_string already at the file's level: written once, not shifted twice", async () => {
  const src = "class A:\n    def f(self):\n        x = 1\n        y = 2\n        return x\n";
  const dir = tempTree({ "m.py": src });
  const r = await call(dir, "edit", {
    path: "m.py",
    old_string: "x = 1\ny = 2",
    new_string: "        x = 1\n        y = 3",
  });
  assert.ok(r.success, r.error);
  assert.equal(read(dir, "m.py"), src.replace("y = 2", "y = 3"));
});

test("a reading that re-parents is passed over with a note saying why; when every reading breaks the file, the edit is refused with each", async () => {
  const src = "def f(name):\n    if ok:\n        x()\n        z()\n    else:\n        w()\n";
  const dir = tempTree({ "m.py": src });
  // Column 4 is open there, so it is the first reading; it would leave the `else:` without its `if`.
  const r = await call(dir, "edit_lines", {
    path: "m.py",
    command: "replace",
    start_line: 4,
    end_line: 4,
    new_content: "    log(name)",
  });
  assert.ok(r.success, r.error);
  assert.equal(read(dir, "m.py"), src.replace("        z()", "        log(name)"));
  assert.match(
    r.output ?? "",
    /note: indentation moved to column 8.*; the first reading \(kept as written: column 4 is a level open here\) would break the file at line \d+/,
  );
  // A content whose every placement is a syntax error in this spot.
  const dir2 = tempTree({ "m.py": src });
  const before = treeHash(dir2);
  const bad = await call(dir2, "edit_lines", {
    path: "m.py",
    command: "replace",
    start_line: 3,
    end_line: 4,
    new_content: "  x()\nz()",
  });
  if (!bad.success) assert.equal(treeHash(dir2), before);
  else assert.ok(compiles(read(dir2, "m.py")), "whatever is written compiles");
});

test("caller's indentation first: content at a level open at the place is kept, one at an impossible level is shifted", async () => {
  const src = "def f():\n    if a:\n        b()\n    c()\n";
  const dir = tempTree({ "m.py": src });
  // Column 4 is open after `b()` (the function body): kept, so d() runs after the if.
  assert.ok(
    (await call(dir, "edit_lines", { path: "m.py", command: "insert", insert_line: 3, new_content: "    d()" }))
      .success,
  );
  assert.equal(read(dir, "m.py"), "def f():\n    if a:\n        b()\n    d()\n    c()\n");
  // Column 2 is no level here: moved to the line before's level.
  const dir2 = tempTree({ "m.py": src });
  assert.ok(
    (await call(dir2, "edit_lines", { path: "m.py", command: "insert", insert_line: 3, new_content: "  d()" })).success,
  );
  assert.equal(read(dir2, "m.py"), "def f():\n    if a:\n        b()\n        d()\n    c()\n");
});

// ------------------------------------------------------------------ elision (class 4)

test("4: new_string whose placeholder stands where old_string quoted code is refused; nothing written", async () => {
  const src = "class A {\n  a() {\n    return 1;\n  }\n  b() {\n    return 2;\n  }\n}\n";
  const cases = [
    "  a() {\n    return 10;\n  }\n  // ... rest of methods unchanged ...",
    "  a() {...}\n  // ... rest of methods unchanged ...",
    "  a() {\n    return 10;\n  }\n  // ...",
    "  /* ... */\n  b() {\n    return 2;\n  }",
  ];
  for (const neu of cases) {
    const dir = tempTree({ "a.ts": src });
    const before = treeHash(dir);
    const r = await call(dir, "edit", {
      path: "a.ts",
      old_string: "  a() {\n    return 1;\n  }\n  b() {\n    return 2;\n  }",
      new_string: neu,
    });
    assert.equal(r.success, false, neu);
    assert.match(r.error ?? "", /placeholder for code it leaves out.*Quote the full text/s);
    assert.equal(treeHash(dir), before);
  }
  // A marker the file already had is the file's own text, and a comment added without removing code is fine.
  const dir = tempTree({ "a.ts": "// ...\nx();\n" });
  assert.ok(
    (await call(dir, "edit", { path: "a.ts", old_string: "// ...\nx();", new_string: "// ...\ny();" })).success,
  );
  assert.ok(
    (await call(dir, "edit", { path: "a.ts", old_string: "y();", new_string: "y();\n// ... more later" })).success,
  );
});

test("4: a Python body replaced by `...` is refused through edit; a line edit may still delete", async () => {
  const src = "def f():\n    a = 1\n    return a\n";
  const dir = tempTree({ "m.py": src });
  const r = await call(dir, "edit", {
    path: "m.py",
    old_string: "def f():\n    a = 1\n    return a",
    new_string: "def f():\n    ...",
  });
  assert.equal(r.success, false);
  assert.ok(
    (
      await call(dir, "edit_lines", {
        path: "m.py",
        command: "replace",
        start_line: 2,
        end_line: 3,
        new_content: "    ...",
      })
    ).success,
  );
});

// ------------------------------------------------------------------ write after read

test("write over an existing file needs a read of its current content; new files are free", async () => {
  const dir = tempTree({ "a.txt": "keep me\n" });
  const ws = createWorkspace({ root: dir, env: {} });
  const before = treeHash(dir);
  const refused = (await callTool(ws, "write", { path: "a.txt", content: "new\n" })) as {
    success: boolean;
    error?: string;
  };
  assert.equal(refused.success, false);
  assert.match(refused.error ?? "", /has not been read.*Read it first/);
  assert.equal(treeHash(dir), before);
  assert.ok((await callTool(ws, "write", { path: "b.txt", content: "fresh\n" })).success, "a new file");
  assert.ok((await callTool(ws, "write", { path: "b.txt", content: "again\n" })).success, "a file rt wrote is known");
  assert.ok((await callTool(ws, "read", { path: "a.txt" })).success);
  assert.ok((await callTool(ws, "write", { path: "a.txt", content: "new\n" })).success);
  // Changed by another program since: refused again.
  fs.writeFileSync(path.join(dir, "a.txt"), "changed elsewhere\n");
  const stale = (await callTool(ws, "write", { path: "a.txt", content: "mine\n" })) as {
    success: boolean;
    error?: string;
  };
  assert.equal(stale.success, false);
  assert.match(stale.error ?? "", /changed since rt last showed it/);
  // A grep match shows it too; so does open.
  assert.ok((await callTool(ws, "grep", { pattern: "elsewhere", path: "." })).success);
  assert.ok((await callTool(ws, "write", { path: "a.txt", content: "mine\n" })).success);
});

test("a grep match counts as shown for every file it shows, across processes, and only those", async () => {
  const files: Record<string, string> = { "other.txt": "no match here\n" };
  for (let i = 0; i < 30; i++) files[`pkg/m${i % 4}/f${i}.txt`] = `line\nneedle ${i}\n`;
  const dir = tempTree(files);
  // Some of them read before (their records exist), the others never.
  for (const i of [3, 7, 11])
    await callTool(createWorkspace({ root: dir, env: {} }), "read", { path: `pkg/m${i % 4}/f${i}.txt` });
  assert.ok((await callTool(createWorkspace({ root: dir, env: {} }), "grep", { pattern: "needle" })).success);
  for (let i = 0; i < 30; i++) {
    const r = await callTool(createWorkspace({ root: dir, env: {} }), "write", {
      path: `pkg/m${i % 4}/f${i}.txt`,
      content: "new\n",
    });
    assert.ok(r.success, `f${i}: ${r.error}`);
  }
  const refused = await callTool(createWorkspace({ root: dir, env: {} }), "write", {
    path: "other.txt",
    content: "new\n",
  });
  assert.equal(refused.success, false, "a file grep did not show");
});

test("write after read holds across processes (the record is kept in .rt/)", async () => {
  const dir = tempTree({ "a.txt": "x\n" });
  await callTool(createWorkspace({ root: dir, env: {} }), "open", { path: "a.txt" });
  assert.ok(
    (await callTool(createWorkspace({ root: dir, env: {} }), "write", { path: "a.txt", content: "y\n" })).success,
  );
});

test("write: content that replaces code with a placeholder is refused", async () => {
  const dir = tempTree({ "a.js": "function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n" });
  const ws = createWorkspace({ root: dir, env: {} });
  await callTool(ws, "read", { path: "a.js" });
  const r = (await callTool(ws, "write", {
    path: "a.js",
    content: "function a() {\n  return 10;\n}\n// ... rest of file unchanged\n",
  })) as { success: boolean; error?: string };
  assert.equal(r.success, false);
  assert.match(r.error ?? "", /placeholder/);
});
