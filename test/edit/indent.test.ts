import { test } from "node:test";
import assert from "node:assert/strict";
import { fitIndentation, detectStyle } from "../../src/edit/indent.ts";

const py = ["def f(x):", "    if x:", "        return 1", "    return 2", "", "print(f(1))"];

test("content at column 0 replacing an indented line is shifted to it, keeping relative indentation", () => {
  assert.deepEqual(fitIndentation(["if y:", "    return 3"], { lines: py, at: 3, replacing: 1 }), [
    "    if y:",
    "        return 3",
  ]);
});

test("correctly indented content is left exactly as written", () => {
  assert.deepEqual(fitIndentation(["        return 5"], { lines: py, at: 2, replacing: 1 }), ["        return 5"]);
});

test("a deliberate dedent to an enclosing level is kept", () => {
  assert.deepEqual(fitIndentation(["    return 9"], { lines: py, at: 2, replacing: 1 }), ["    return 9"]);
});

test("insertion after a line ending in ':' goes one level deeper", () => {
  assert.deepEqual(fitIndentation(["y = 1"], { lines: py, at: 1, replacing: 0 }), ["    y = 1"]);
  const js = ["function f() {", "  return 1;", "}"];
  assert.deepEqual(fitIndentation(["const y = 2;"], { lines: js, at: 1, replacing: 0 }), ["  const y = 2;"]);
});

test("a new top-level function inserted after a function body stays at column 0", () => {
  assert.deepEqual(fitIndentation(["def g():", "    pass"], { lines: py, at: 4, replacing: 0 }), [
    "def g():",
    "    pass",
  ]);
});

test("indent_level overrides", () => {
  assert.deepEqual(fitIndentation(["a", "  b"], { lines: py, at: 2, replacing: 1, indentLevel: 2 }), ["  a", "    b"]);
});

test("tabs stay tabs in a tab-indented file", () => {
  const go = ["func f() {", "\tif x {", "\t\treturn 1", "\t}", "}"];
  assert.equal(detectStyle(go).tabs, true);
  assert.deepEqual(fitIndentation(["return 2"], { lines: go, at: 2, replacing: 1 }), ["\t\treturn 2"]);
  assert.deepEqual(fitIndentation(["        return 3", "        x()"], { lines: go, at: 2, replacing: 1 }), [
    "\t\treturn 3",
    "\t\tx()",
  ]);
});

test("detectStyle finds 2-space indentation", () => {
  assert.deepEqual(detectStyle(["a {", "  b {", "    c", "  }", "}"]), { tabs: false, unit: 2 });
});

test("a copy shifted as a whole is put back where the replaced lines were (repeated lines show the shift)", () => {
  const file = ["class A:", "    def f(self):", "        if x:", "            return 1", "        return 2"];
  // The caller copied lines 3-5 with 4 extra spaces and changed one of them.
  const content = ["            if x:", "                return 10", "            return 2"];
  assert.deepEqual(fitIndentation(content, { lines: file, at: 2, replacing: 3 }), [
    "        if x:",
    "            return 10",
    "        return 2",
  ]);
});

test("a block deliberately wrapped in a new statement keeps its new indentation", () => {
  const file = ["def f():", "    a()", "    b()", "    return 1"];
  const content = ["    if ok:", "        a()", "        b()"];
  assert.deepEqual(fitIndentation(content, { lines: file, at: 1, replacing: 2 }), content);
});

test("spaces written for a tab-indented file follow the repeated lines' tab width", () => {
  const file = ["func f() {", "\tif x {", "\t\treturn 1", "\t}", "}"];
  const content = ["    if x {", "        return 2", "    }"];
  assert.deepEqual(fitIndentation(content, { lines: file, at: 1, replacing: 3 }), ["\tif x {", "\t\treturn 2", "\t}"]);
});

test("unmoved repeated lines mean the content is already placed, even when a less indented line was removed", () => {
  const file = ["def f():", "    if x:", "        a()", "    else:", "        b()"];
  const content = ["        a()", "        b()"];
  assert.deepEqual(fitIndentation(content, { lines: file, at: 2, replacing: 3 }), content);
});

test("content that only re-indents the replaced lines is kept as written: fixing a misplaced line (seed 001)", () => {
  // The body of `if self.ok:` sits at the `if`'s level; the caller gives it one level deeper.
  const broken = [
    "class A:",
    "    def get(self):",
    "        if self.ok:",
    "        return self.data",
    "        return None",
  ];
  assert.deepEqual(fitIndentation(["            return self.data"], { lines: broken, at: 3, replacing: 1 }), [
    "            return self.data",
  ]);
  const odd = ["def f():", "    x = 1", "   y = 2", "    return x"];
  assert.deepEqual(fitIndentation(["    y = 2"], { lines: odd, at: 2, replacing: 1 }), ["    y = 2"]);
  // A block re-indented as a whole keeps its inner structure.
  const block = ["def f():", "    if x:", "    a = 1", "    if a:", "        b()", "    return a"];
  assert.deepEqual(
    fitIndentation(["        a = 1", "        if a:", "            b()"], { lines: block, at: 2, replacing: 3 }),
    ["        a = 1", "        if a:", "            b()"],
  );
});

test("tabs written for a space-indented file: the tab width is read from the content's structure (two tabs per level here)", () => {
  const file = [
    "interface A {",
    "    a: string;",
    "}",
    "export interface B extends A {",
    "    readonly code: string;",
    "    readonly b?: number;",
    "}",
  ];
  // One level written as two tabs: a tab stood for two columns, not four.
  assert.deepEqual(
    fitIndentation(["}", "export interface B extends A {", "\t\treadonly code_x: string;"], {
      lines: file,
      at: 2,
      replacing: 3,
    }),
    ["}", "export interface B extends A {", "    readonly code_x: string;"],
  );
  // One tab per level is still four columns.
  assert.deepEqual(
    fitIndentation(["}", "export interface B extends A {", "\treadonly code_x: string;"], {
      lines: file,
      at: 2,
      replacing: 3,
    }),
    ["}", "export interface B extends A {", "    readonly code_x: string;"],
  );
});

test("JSDoc continuation lines (' * ') do not make the file look 1-space indented", () => {
  const file = [
    "/**",
    " * Doc.",
    " */",
    "interface A {",
    "    /**",
    "     * Field.",
    "     */",
    "    a: string;",
    "    b: number;",
    "}",
  ];
  assert.deepEqual(detectStyle(file), { tabs: false, unit: 4 });
  assert.deepEqual(fitIndentation(["\treadonly b: number;"], { lines: file, at: 8, replacing: 1 }), [
    "    readonly b: number;",
  ]);
});

test("tabs for a space-indented file: a replacement's first line sits where the replaced line was (the width that puts it there wins)", () => {
  const file = [
    "type Flat<Arr> = {",
    "    done: Arr,",
    "    recur: Arr extends ReadonlyArray<infer A>",
    "        ? Flat<A>",
    "        : Arr;",
    "}[Depth];",
  ];
  assert.deepEqual(fitIndentation(["\t\t\t\t: Arr_x;", "}[Depth];"], { lines: file, at: 4, replacing: 2 }), [
    "        : Arr_x;",
    "}[Depth];",
  ]);
});

test("tabs for a space-indented file: a line replacing a line at the same position sits where it was (a tab for two spaces in a 2-space region)", () => {
  const file = [
    "function a() {",
    "    return 1;",
    "}",
    "(function () {",
    "  var keys = Object.keys(exports);",
    "  seal(keys);",
    "})();",
  ];
  assert.deepEqual(
    fitIndentation(["(function () {", "\tvar keys_x = Object.keys(exports);"], { lines: file, at: 3, replacing: 2 }),
    ["(function () {", "  var keys_x = Object.keys(exports);"],
  );
});

test("a shifted copy that drops one of two closing braces pairs the kept brace with the one that moved like the other lines", () => {
  const file = [
    "function f(a) {",
    "  for (const x of a) {",
    "    if (x) {",
    "      return false",
    "    }",
    "  }",
    "  return true",
    "}",
  ];
  // The model's copy is 4 columns too deep; it removes the inner `}`.
  const content = ["          return false", "      }", "      return true"];
  assert.deepEqual(fitIndentation(content, { lines: file, at: 3, replacing: 4 }), [
    "      return false",
    "  }",
    "  return true",
  ]);
});

test("tabs for a space-indented file: a kept line whose line above was deleted is not taken to sit at the deleted line's place", () => {
  const file = [
    "(function (u) {",
    "    u.f = function () {",
    "        return 1;",
    "        };",
    "    };",
    "})(u || (u = {}));",
  ];
  assert.deepEqual(fitIndentation(["\t};", "})(u || (u = {}));"], { lines: file, at: 3, replacing: 3 }), [
    "    };",
    "})(u || (u = {}));",
  ]);
});

test("tabs for a space-indented file: a closing brace right after an opener (its body deleted) is not one level deeper", () => {
  const file = ["const f = (issue) => {", "  switch (issue.code) {", "    default:", "      return `x`;", "  }", "};"];
  // Two-space file, a tab written for two spaces; the model deletes the `default:` body.
  assert.deepEqual(fitIndentation(["\t}", "};"], { lines: file, at: 3, replacing: 3 }), ["  }", "};"]);
});
