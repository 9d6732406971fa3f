// Python's indentation errors (issue 3, "Syntax validation"): tree-sitter-python
// accepts an empty block, a stray indented line and a dedent to a level never
// opened, but Python rejects them, so rt's edit check must too.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { pythonIndentProblems } from "../../src/edit/pythonIndent.ts";
import { validateEdit } from "../../src/edit/validate.ts";
import { rt, rtCall, tempTree, treeHash } from "../helpers.ts";

const messages = (t: string) => pythonIndentProblems(t).map((p) => `${p.row + 1}:${p.column + 1} ${p.message}`);

test("each kind of indentation error is found where Python reports it", () => {
  assert.deepEqual(messages("def f():\nreturn 1\n"), ["2:1 expected an indented block after line 1"]);
  assert.deepEqual(messages("if x:\n    a = 1\nelse:\n"), ["3:5 expected an indented block after line 3"]);
  assert.deepEqual(messages("def f():\n    a = 1\n        b = 2\n"), ["3:9 unexpected indent"]);
  assert.deepEqual(messages("def f():\n    a = 1\n  b = 2\n"), [
    "3:3 unindent does not match any outer indentation level",
  ]);
  assert.deepEqual(messages("if x:\n        a = 1\n\tb = 2\n"), [
    "3:2 inconsistent use of tabs and spaces in indentation",
  ]);
  assert.deepEqual(
    messages("class A:\n    def f(self):\n        pass\n\n        @property\n    def g(self):\n        pass\n"),
    ["6:5 unexpected unindent"],
  );
  assert.deepEqual(messages("  x = 1\n"), ["1:3 unexpected indent"]);
});

test("valid Python is clean: strings, f-strings, brackets, continuations, comments, CRLF, tabs", () => {
  const ok = [
    "x = (1,\n        2)\ny = [\n  3]\n",
    "s = '''\n  not code:\n'''\nt = 1\n",
    'def f():\n    """doc:\n  still doc\n"""\n    return 1\n',
    "x = 1 + \\\n        2\nif x:  # comment:\n    pass\n",
    "d = {\n    'a':\n        1,\n}\n",
    "if x:\r\n    y = 1\r\n\r\nz = 2\r\n",
    "if x:\n\tif y:\n\t\tpass\n\tz = 1\n",
    'n = f"{x:>{w}}" + f\'{d["k"]!r}:\' + rb"\\"" + f"{{:"\nif n:\n    pass\n',
    "# only a comment:\n    # indented comment\nx = 1\n",
    "class A: pass\nx = 1\n",
    "@dec\ndef f(): return 1\n",
  ];
  for (const t of ok) assert.deepEqual(messages(t), [], JSON.stringify(t));
});

test("validateEdit rejects an edit that breaks Python's indentation, but not one in an already broken file", async () => {
  const base = "def f(x):\n    if x:\n        return 1\n    return 2\n";
  const emptied = await validateEdit("a.py", base, "def f(x):\n    if x:\n    return 2\n");
  assert.equal(emptied.introduced.length, 1);
  assert.match(emptied.introduced[0].message ?? "", /expected an indented block after line 2/);
  const stray = await validateEdit("a.py", base, "def f(x):\n    if x:\n        return 1\n      return 2\n");
  assert.match(stray.introduced[0].message ?? "", /unindent does not match/);
  // The old file already has the same indentation error elsewhere: an edit that adds none passes.
  const broken = "def f(x):\n    if x:\n        return 1\n      return 2\n";
  const edit = await validateEdit("a.py", broken, broken.replace("return 1", "return 10"));
  assert.deepEqual(edit.introduced, []);
});

test("rt edit and edit refuse a Python edit that Python would reject as an IndentationError; --force writes it", async () => {
  const PY =
    "class A:\n    def __init__(self, w):\n        self.width = w\n        self.height = w\n\n    def area(self):\n        return self.width * self.height\n";
  const dir = tempTree({ "a.py": PY });
  const before = treeHash(dir);
  const r = await rt(["edit", "a.py", "3", "3", "--indent", "0"], { cwd: dir, input: "self.width = w\n" });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /edit rejected/);
  assert.match(r.stderr, /3:1: expected an indented block after line 2/);
  const e = await rtCall(
    "edit",
    { path: "a.py", old_string: "        self.width = w", new_string: "width = w" },
    { cwd: dir },
  );
  assert.equal(e.code, 1);
  assert.match(e.result.error, /unexpected indent|expected an indented block/);
  const d = await rtCall("edit_lines", { path: "a.py", command: "delete", start_line: 7, end_line: 7 }, { cwd: dir });
  assert.equal(d.code, 1);
  assert.match(d.result.error, /expected an indented block after line 6/);
  assert.equal(treeHash(dir), before);
  const f = await rt(["edit", "a.py", "3", "3", "--indent", "0", "--force"], { cwd: dir, input: "self.width = w\n" });
  assert.equal(f.code, 0, f.stderr);
  assert.match(fs.readFileSync(path.join(dir, "a.py"), "utf8"), /\nself\.width = w\n/);
});
