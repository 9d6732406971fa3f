// Syntax validation of edits (issue 3, "Syntax validation"): tree-sitter with
// WebAssembly grammars; an edit that adds syntax errors is rejected with their
// line and column, an already broken file can still be edited as long as the
// edit adds none, unknown languages are not checked.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatProblems, validateEdit } from "../../src/edit/validate.ts";
import { detectLanguage } from "../../src/parsers/detectLanguage.ts";
import { LANGUAGE_IDS, loadLanguage, parse, withTree, type LanguageId } from "../../src/parsers/treeSitter.ts";
import { lineHunks, placeAfterLine, placeBeforeLine } from "../../src/edit/lineHunks.ts";

interface LanguageCase {
  lang: LanguageId;
  path: string;
  /** A small valid file. */
  base: string;
  /** `base` after a valid edit near its top that adds a line. */
  good: string;
  /** `base` after an edit that breaks it, and where the error is reported (1-based). */
  bad: string;
  at: [line: number, column: number];
  /** Breaks a text near its end, away from the edits above: makes the "already broken" file. */
  breakIt: (text: string) => string;
}

const appendLine = (line: string) => (t: string) => `${t}${line}\n`;

const CASES: LanguageCase[] = [
  {
    lang: "python",
    path: "a.py",
    base: "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n",
    good: "def add(a, b):\n    total = a + b\n    return total\n\nprint(add(1, 2))\n",
    bad: "def add(a, b):\n    return a +\n\nprint(add(1, 2))\n",
    at: [2, 5],
    breakIt: (t) => t.replace("print(add(1, 2))", "print(add(1, 2)) )"),
  },
  {
    lang: "javascript",
    path: "a.js",
    base: "function add(a, b) {\n  return a + b;\n}\nconsole.log(add(1, 2));\n",
    good: "function add(a, b) {\n  const total = a + b;\n  return total;\n}\nconsole.log(add(1, 2));\n",
    bad: "function add(a, b) {\n  return a + * b;\n}\nconsole.log(add(1, 2));\n",
    at: [2, 12],
    breakIt: (t) => t.replace("console.log(add(1, 2));", "console.log(add(1, 2)));"),
  },
  {
    lang: "typescript",
    path: "a.ts",
    base: "function add(a: number, b: number): number {\n  return a + b;\n}\nexport const x: number = add(1, 2);\n",
    good: "function add(a: number, b: number): number {\n  const total: number = a + b;\n  return total;\n}\nexport const x: number = add(1, 2);\n",
    bad: "function add(a: number, b: number): number {\n  return a + * b;\n}\nexport const x: number = add(1, 2);\n",
    at: [2, 12],
    breakIt: (t) => t.replace("add(1, 2);", "add(1, 2));"),
  },
  {
    lang: "tsx",
    path: "App.tsx",
    base: 'export function App(props: { name: string }) {\n  return <div className="app">{props.name}</div>;\n}\n',
    good: 'export function App(props: { name: string }) {\n  const label: string = props.name;\n  return <div className="app">{label}</div>;\n}\n',
    bad: 'export function App(props: { name: string }) {\n  return <div className="app">{props.name}</div>);\n}\n',
    at: [2, 49],
    breakIt: appendLine("}"),
  },
  {
    lang: "json",
    path: "a.json",
    base: '{\n  "name": "rt",\n  "version": 1\n}\n',
    good: '{\n  "name": "rt",\n  "private": true,\n  "version": 1\n}\n',
    bad: '{\n  "name": "rt"\n  "version": 1\n}\n',
    at: [2, 3],
    breakIt: (t) => t.replace(/}\n$/, "}}\n"),
  },
  {
    lang: "go",
    path: "a.go",
    base: "package main\n\nfunc add(a int, b int) int {\n\treturn a + b\n}\n",
    good: "package main\n\nfunc add(a int, b int) int {\n\ttotal := a + b\n\treturn total\n}\n",
    bad: "package main\n\nfunc add(a int, b int) int {\n\treturn a + )\n}\n",
    at: [4, 11],
    breakIt: appendLine(")"),
  },
  {
    lang: "rust",
    path: "a.rs",
    base: "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    good: "fn add(a: i32, b: i32) -> i32 {\n    let total = a + b;\n    total\n}\n",
    bad: "fn add(a: i32, b: i32) -> i32 {\n    let total = a + ;\n    total\n}\n",
    at: [2, 20],
    breakIt: appendLine(")"),
  },
  {
    lang: "java",
    path: "A.java",
    base: "class A {\n  int add(int a, int b) {\n    return a + b;\n  }\n}\n",
    good: "class A {\n  int add(int a, int b) {\n    int total = a + b;\n    return total;\n  }\n}\n",
    bad: "class A {\n  int add(int a, int b) {\n    return a + * b;\n  }\n}\n",
    at: [3, 14],
    breakIt: appendLine(")"),
  },
  {
    lang: "c",
    path: "a.c",
    base: "int add(int a, int b) {\n  return a + b;\n}\n",
    good: "int add(int a, int b) {\n  int total = a + b;\n  return total;\n}\n",
    bad: "int add(int a, int b) {\n  return a + * ;\n}\n",
    at: [2, 15],
    breakIt: appendLine(")"),
  },
  {
    lang: "cpp",
    path: "a.cpp",
    base: "template <typename T>\nT add(T a, T b) {\n  return a + b;\n}\n",
    good: "template <typename T>\nT add(T a, T b) {\n  T total = a + b;\n  return total;\n}\n",
    bad: "template <typename T>\nT add(T a, T b) {\n  return a + * ;\n}\n",
    at: [3, 15],
    breakIt: appendLine(")"),
  },
  {
    lang: "csharp",
    path: "A.cs",
    base: "class A {\n  int Add(int a, int b) {\n    return a + b;\n  }\n}\n",
    good: "class A {\n  int Add(int a, int b) {\n    var total = a + b;\n    return total;\n  }\n}\n",
    bad: "class A {\n  int Add(int a, int b) {\n    return a + ) b;\n  }\n}\n",
    at: [3, 16],
    breakIt: appendLine(")"),
  },
  {
    lang: "ruby",
    path: "a.rb",
    base: "def add(a, b)\n  a + b\nend\nputs add(1, 2)\n",
    good: "def add(a, b)\n  total = a + b\n  total\nend\nputs add(1, 2)\n",
    bad: "def add(a, b)\n  a + * b\nend\nputs add(1, 2)\n",
    // The ERROR node starts at `def` (line 1); it is reported where it enters the edited line.
    at: [2, 3],
    breakIt: (t) => t.replace("puts add(1, 2)", "puts add(1, 2))"),
  },
  {
    lang: "php",
    path: "a.php",
    base: "<?php\nfunction add($a, $b) {\n  return $a + $b;\n}\necho add(1, 2);\n",
    good: "<?php\nfunction add($a, $b) {\n  $total = $a + $b;\n  return $total;\n}\necho add(1, 2);\n",
    bad: "<?php\nfunction add($a, $b) {\n  return $a + * $b;\n}\necho add(1, 2);\n",
    at: [3, 13],
    breakIt: (t) => t.replace("echo add(1, 2);", "echo add(1, 2));"),
  },
  {
    lang: "bash",
    path: "a.sh",
    base: "#!/bin/bash\nif [ -f x ]; then\n  echo yes\nfi\n",
    good: "#!/bin/bash\nif [ -f x ]; then\n  echo yes\n  echo again\nfi\n",
    bad: "#!/bin/bash\nif [ -f x ]; then\n  echo yes)\nfi\n",
    at: [3, 3],
    breakIt: appendLine(")"),
  },
  {
    lang: "yaml",
    path: "a.yaml",
    base: "name: rt\nitems:\n  - one\n  - two\n",
    good: "name: rt\nitems:\n  - zero\n  - one\n  - two\n",
    bad: "name: rt\nitems:\n  - one\n  - [two\n",
    // YAML wraps the whole document in the ERROR node; it is reported on the edited line.
    at: [4, 3],
    breakIt: appendLine("key: [x"),
  },
  {
    lang: "toml",
    path: "Cargo.toml",
    base: '[package]\nname = "rt"\nversion = "0.1.0"\n',
    good: '[package]\nname = "rt"\nedition = "2021"\nversion = "0.1.0"\n',
    bad: '[package]\nname = "rt"\nversion = = "0.1.0"\n',
    at: [3, 11],
    breakIt: appendLine("[broken"),
  },
  {
    lang: "html",
    path: "index.html",
    base: "<!DOCTYPE html>\n<html>\n<body>\n<p>Hello</p>\n</body>\n</html>\n",
    good: "<!DOCTYPE html>\n<html>\n<body>\n<h1>Title</h1>\n<p>Hello</p>\n</body>\n</html>\n",
    bad: "<!DOCTYPE html>\n<html>\n<body>\n<p>Hello</>\n</body>\n</html>\n",
    at: [4, 9],
    breakIt: appendLine("</div>"),
  },
  {
    lang: "css",
    path: "a.css",
    base: "body {\n  color: red;\n}\n",
    good: "body {\n  margin: 0;\n  color: red;\n}\n",
    bad: "body {\n  color: red;\n  margin 0;\n}\n",
    at: [3, 3],
    breakIt: appendLine("}"),
  },
];

test("every language the issue lists has a case below and a grammar", () => {
  const required = [
    "python",
    "javascript",
    "typescript",
    "tsx",
    "json",
    "go",
    "rust",
    "java",
    "c",
    "cpp",
    "csharp",
    "ruby",
    "php",
    "bash",
    "yaml",
    "toml",
    "html",
    "css",
  ];
  assert.deepEqual([...CASES.map((c) => c.lang)].sort(), [...required].sort());
  assert.deepEqual([...LANGUAGE_IDS].sort(), [...required].sort());
});

for (const c of CASES) {
  describe(`${c.lang} (${c.path})`, () => {
    test("a valid edit is accepted", async () => {
      const r = await validateEdit(c.path, c.base, c.good);
      assert.equal(r.language, c.lang);
      assert.equal(r.checked, true);
      assert.deepEqual(r.introduced, []);
      assert.equal(r.before, 0);
      assert.equal(r.after, 0);
      assert.equal(formatProblems(r, c.good), "");
    });

    test("an edit that breaks the syntax is rejected at the error's line and column", async () => {
      const r = await validateEdit(c.path, c.base, c.bad);
      assert.equal(r.checked, true);
      assert.ok(r.introduced.length > 0, "the broken edit must be rejected");
      const [line, column] = c.at;
      assert.deepEqual([r.introduced[0].line, r.introduced[0].column], [line, column], JSON.stringify(r.introduced));
      const text = formatProblems(r, c.bad);
      assert.match(text, new RegExp(`^${line}:${column}: `, "m"));
      assert.ok(text.includes(`> ${line} | ${c.bad.split("\n")[line - 1]}`), text);
    });

    test("an already broken file can be edited without adding errors, not with", async () => {
      const broken = c.breakIt(c.base);
      assert.notEqual(broken, c.base);
      const edited = c.breakIt(c.good);
      const ok = await validateEdit(c.path, broken, edited);
      assert.equal(ok.checked, true);
      assert.ok(ok.before > 0, "the fixture must really be broken");
      assert.deepEqual(ok.introduced, [], JSON.stringify(ok));
      // The same broken file, edited so that it breaks in a second place.
      const worse = await validateEdit(c.path, broken, c.breakIt(c.bad));
      assert.ok(worse.introduced.length > 0, JSON.stringify(worse));
      assert.equal(worse.introduced[0].line, c.at[0]);
    });
  });
}

describe("which problems an edit introduced", () => {
  test("an edit that fixes one error and adds another elsewhere is rejected although the count is the same", async () => {
    const before = "let a = (1;\nlet b = 2;\nlet c = 3;\nlet d = 4;\nlet e = 5;\nlet f = 6;\n";
    const after = "let a = (1);\nlet b = 2;\nlet c = 3;\nlet d = 4;\nlet e = 5;\nlet f = 6 +;\n";
    const r = await validateEdit("a.js", before, after);
    assert.equal(r.before, 1);
    assert.equal(r.after, 1);
    assert.deepEqual(
      r.introduced.map((p) => [p.line, p.column]),
      [[6, 11]],
    );
    // The same with only one unchanged line between the fix and the new error.
    const nearAfter = "let a = 1;\nlet b = (2);\nlet c = 3;\nlet d = 4 +;\n";
    const near = await validateEdit("a.js", "let a = 1;\nlet b = (2;\nlet c = 3;\nlet d = 4;\n", nearAfter);
    assert.deepEqual([near.before, near.after], [1, 1]);
    assert.deepEqual(
      near.introduced.map((p) => [p.line, p.column]),
      [[4, 11]],
    );
    assert.match(
      formatProblems(near, nearAfter),
      /\n\n\(The file already had 1 syntax error before this edit; only the new ones block it\.\)$/,
    );
  });

  test("rewriting a broken line so that it is still broken (no worse) is accepted", async () => {
    const r = await validateEdit("a.py", "a = 1\nb = (2 +\nc = 3\n", "a = 1\nb = (20 + 1 +\nc = 3\n");
    assert.equal(r.before, 1);
    assert.deepEqual(r.introduced, []);
  });

  test("an error already there stays accepted when lines are inserted above it", async () => {
    const before = "def f(:\n    return 1\n\ndef g():\n    return 2\n";
    const after = "import os\nimport sys\n\ndef f(:\n    return 1\n\ndef g():\n    return 2\n";
    const r = await validateEdit("a.py", before, after);
    assert.ok(r.before > 0);
    assert.deepEqual(r.introduced, []);
  });

  test("an unclosed brace before the edit, whose error spans the edit, does not block it", async () => {
    const before = "function f() {\n  return 1;\n\nfunction g() {\n  return 2;\n}\nconst x = 1;\n";
    const after = "function f() {\n  return 1;\n\nfunction g() {\n  return 3;\n}\nconst x = 10;\nconst y = 2;\n";
    const r = await validateEdit("a.js", before, after);
    assert.ok(r.before > 0);
    assert.deepEqual(r.introduced, []);
  });

  test("an error the edit causes outside the edited lines is caught, and the edited lines are shown", async () => {
    // Deleting the `}` of f leaves g's closing brace to f; the error is reported at the end.
    const before = "function f() {\n  return 1;\n}\n\nfunction g() {\n  return 2;\n}\n";
    const after = "function f() {\n  return 1;\n\nfunction g() {\n  return 2;\n}\n";
    const r = await validateEdit("a.js", before, after);
    assert.deepEqual(r.introduced, [{ line: 6, column: 2, kind: "missing", text: "}" }]);
    assert.deepEqual(r.edited, [{ line: 3, count: 0 }]);
    const text = formatProblems(r, after);
    assert.match(text, /^6:2: missing "}"$/m);
    assert.match(text, /The edit removed lines before line 3:\n {2}2 \| {3}return 1;\n {2}3 \| $/);
  });

  test("an old error whose node moves along its line when the next line changes is still old", async () => {
    // Error recovery for `x = (1` starts the ERROR node at `(` or at `1`
    // depending on what follows: same line, different column, same error.
    for (const [path, before, after] of [
      ["a.py", "x = (1\nbar()\nz = 1\n", "x = (1\ny = 2\nz = 1\n"],
      ["a.js", "x = {a: 1\nbar();\nz = 1;\n", "x = {a: 1\nconst y = 2;\nz = 1;\n"],
    ]) {
      const r = await validateEdit(path, before, after);
      assert.ok(r.before > 0);
      assert.deepEqual(r.introduced, [], `${path}: ${JSON.stringify(r)}`);
    }
  });

  test("inside a rewritten region, the problem reported is the one unlike the region's old problems", async () => {
    // Lines 2-3 are rewritten; line 2 keeps its old error, line 3 gets a new one.
    const r = await validateEdit(
      "a.js",
      "let a = 1;\nlet b = (2 +;\nlet c = 3;\n",
      "let a = 1;\nlet b = (2 +; \nlet c = 3 -;\n",
    );
    assert.deepEqual(r.edited, [{ line: 2, count: 2 }]);
    assert.deepEqual(r.introduced, [{ line: 3, column: 11, kind: "error", text: "-" }]);
  });

  test("when the error is far from the edit, the edited lines are shown too", async () => {
    const before =
      "function f() {\n  return 1;\n}\n\nfunction g() {\n  return 2;\n}\n\nfunction h() {\n  return 3;\n}\n";
    const after = before.replace("  return 1;\n}\n", "  return 1;\n  // done\n");
    const r = await validateEdit("a.js", before, after);
    assert.deepEqual(r.introduced, [{ line: 11, column: 2, kind: "missing", text: "}" }]);
    assert.match(formatProblems(r, after), /\n\nThe edited lines \(3\):\n {3}3 \| {3}\/\/ done$/);
  });

  test("an unchanged text is accepted, broken or not", async () => {
    const r = await validateEdit("a.js", "let a = (;\n", "let a = (;\n");
    assert.equal(r.before, 1);
    assert.deepEqual(r.introduced, []);
  });
});

describe("changed regions", () => {
  test("a line diff gives each replacement, insertion and deletion as a region, and maps unchanged lines", () => {
    const before = ["a", "b", "c", "d", "e", "f"];
    const after = ["a", "B", "c", "x", "y", "d", "f"];
    const hunks = lineHunks(before, after);
    assert.deepEqual(hunks, [
      { beforeStart: 1, beforeEnd: 2, afterStart: 1, afterEnd: 2 }, // b -> B
      { beforeStart: 3, beforeEnd: 3, afterStart: 3, afterEnd: 5 }, // x, y inserted
      { beforeStart: 4, beforeEnd: 5, afterStart: 6, afterEnd: 6 }, // e deleted
    ]);
    assert.deepEqual(placeBeforeLine(hunks, 0), { line: 0 });
    assert.deepEqual(placeBeforeLine(hunks, 1), { hunk: 0 });
    assert.deepEqual(placeBeforeLine(hunks, 3), { line: 5 }); // d moved down by two
    assert.deepEqual(placeBeforeLine(hunks, 4), { hunk: 2 });
    assert.deepEqual(placeBeforeLine(hunks, 5), { line: 6 });
    assert.deepEqual(placeAfterLine(hunks, 4), { hunk: 1 });
    assert.deepEqual(placeAfterLine(hunks, 5), { line: 5 });
    assert.deepEqual(lineHunks(before, before), []);
  });
});

describe("positions and text", () => {
  test("columns count characters: an emoji before the error counts once", async () => {
    const r = await validateEdit("a.js", 'const s = "😀";\n', 'const s = "😀" +;\n');
    assert.deepEqual([r.introduced[0].line, r.introduced[0].column], [1, 15]);
  });

  test("CRLF files and a byte-order mark do not shift lines or columns", async () => {
    const crlf = await validateEdit("a.js", "let a = 1;\r\nlet b = 2;\r\n", "let a = 1;\r\nlet b = 2 +;\r\n");
    assert.deepEqual([crlf.introduced[0].line, crlf.introduced[0].column], [2, 11]);
    const bom = await validateEdit("a.json", '\uFEFF{"a": 1}\n', '\uFEFF{"a": 1,}\n');
    assert.deepEqual([bom.introduced[0].line, bom.introduced[0].column], [1, 8]);
    assert.deepEqual((await validateEdit("a.json", '\uFEFF{"a": 1}\n', '\uFEFF{"a": 2}\n')).introduced, []);
  });

  test("the error text has each problem as line:column, numbered context and a caret", async () => {
    const before = "def f():\n    x = 1\n    y = 2\n    return x\n";
    const after = "def f():\n    x = 1\n    y = (2 +\n    return x\n";
    const r = await validateEdit("a.py", before, after);
    const text = formatProblems(r, after);
    assert.equal(
      text,
      [
        '3:5: unexpected "y = (2 +"',
        "  1 | def f():",
        "  2 |     x = 1",
        "> 3 |     y = (2 +",
        "    |     ^",
        "  4 |     return x",
      ].join("\n"),
    );
  });

  test("the error text shows the first problems only, says how many more, and keeps tabs under the caret", async () => {
    const before = "package main\n\nfunc f() {\n\ta := 1\n\tb := 2\n\tc := 3\n\td := 4\n}\n";
    const after = "package main\n\nfunc f() {\n\ta := 1 +)\n\tb := 2 +)\n\tc := 3 +)\n\td := 4 +)\n}\n";
    const r = await validateEdit("a.go", before, after);
    assert.ok(r.introduced.length >= 4, JSON.stringify(r.introduced));
    const text = formatProblems(r, after);
    assert.equal(text.match(/^\d+:\d+: /gm)?.length, 3);
    assert.match(text, new RegExp(`… and ${r.introduced.length - 3} more\\.$`));
    assert.match(text, /^4:10: /m);
    assert.match(text, /> 4 \| \ta := 1 \+\)\n {4}\| \t {8}\^/);
  });

  test("problems on one line share one window of context", async () => {
    const before = "class A {\n  void f() {\n    int x = 1;\n  }\n\n  void g() {\n  }\n}\n";
    const after = "class A {\n  void f() {\n    int x = 1;\n\n  void g() {\n  }\n}\n";
    const r = await validateEdit("A.java", before, after);
    assert.deepEqual(
      r.introduced.map((p) => `${p.line}:${p.column}`),
      ["5:9", "5:9"],
    );
    const text = formatProblems(r, after);
    assert.match(text, /^5:9: missing ";"\n5:9: unexpected "\(\) \{"\n {2}3 \|/m);
    assert.equal(text.match(/^> 5 \|/gm)?.length, 1);
  });

  test("a very long line is cut around the caret", async () => {
    const long = `const a = [${"1, ".repeat(500)}1];\n`;
    const r = await validateEdit("a.js", long, long.replace("1];", "1 +];"));
    const text = formatProblems(r, long.replace("1];", "1 +];"));
    const shown = text.split("\n").find((l) => l.startsWith("> 1 | "))!;
    assert.ok(shown.length < 260, shown);
    assert.match(shown, /^> 1 \| …/);
    const caret = text.split("\n")[text.split("\n").indexOf(shown) + 1];
    assert.equal(shown[caret.indexOf("^")], "+");
  });
});

describe("language detection", () => {
  test("an unknown extension is not checked, and the result says so", async () => {
    const r = await validateEdit("notes.xyz", "a (", "a ( (");
    assert.deepEqual(
      { ...r, reason: undefined },
      {
        language: null,
        checked: false,
        introduced: [],
        moved: [],
        before: 0,
        after: 0,
        edited: [],
        reason: undefined,
      },
    );
    assert.match(r.reason ?? "", /no syntax check for notes\.xyz/);
    assert.equal(formatProblems(r, "a ( ("), "");
  });

  test("an extensionless script is checked by its shebang", async () => {
    const before = "#!/usr/bin/env python3\nprint('hi')\n";
    const r = await validateEdit("bin/tool", before, "#!/usr/bin/env python3\nprint('hi'\n");
    assert.equal(r.language, "python");
    assert.equal(r.introduced.length, 1);
    const sh = await validateEdit("bin/run", "#!/bin/sh\necho hi\n", "#!/bin/sh\nif true; then\n");
    assert.equal(sh.language, "bash");
    assert.ok(sh.introduced.length > 0);
    assert.equal((await validateEdit("bin/plain", "a (\n", "a ( (\n")).checked, false);
  });

  test("shebangs: env with options, versioned interpreters, and shells that are not bash", () => {
    assert.equal(detectLanguage("x", "#!/usr/bin/env -S node --no-warnings\n"), "javascript");
    assert.equal(detectLanguage("x", "#!/usr/bin/python3.12 -u\n"), "python");
    assert.equal(detectLanguage("x", "#!/bin/bash -e\n"), "bash");
    assert.equal(detectLanguage("x", "#!/usr/bin/env ruby\n"), "ruby");
    assert.equal(detectLanguage("x", "#!/usr/bin/env zsh\n"), null);
    assert.equal(detectLanguage("x", "echo no shebang\n"), null);
    // The name wins over the shebang.
    assert.equal(detectLanguage("x.js", "#!/usr/bin/env python3\n"), "javascript");
  });

  test("extensions and file names", () => {
    assert.equal(detectLanguage("src/a.mjs"), "javascript");
    assert.equal(detectLanguage("src/a.JSX"), "javascript");
    assert.equal(detectLanguage("src/a.mts"), "typescript");
    assert.equal(detectLanguage("include/a.h"), "cpp");
    assert.equal(detectLanguage("Gemfile"), "ruby");
    assert.equal(detectLanguage("ci.yml"), "yaml");
    assert.equal(detectLanguage("home/.bashrc"), "bash");
    assert.equal(detectLanguage("README.md"), null);
  });
});

describe("tree-sitter loader", () => {
  test("a grammar is loaded once per process; parse and withTree serve other callers (the shell check)", async () => {
    const bash = await loadLanguage("bash");
    assert.equal(await loadLanguage("bash"), bash);
    const tree = await parse("echo hi | grep h > out.txt\n", "bash");
    assert.ok(tree);
    assert.equal(tree.rootNode.type, "program");
    assert.equal(tree.rootNode.hasError, false);
    tree.delete();
    const types = await withTree("ls -la && rm x\n", "bash", (t) =>
      t.rootNode.descendantsOfType("command_name").map((n) => n?.text),
    );
    assert.deepEqual(types, ["ls", "rm"]);
  });

  test("a parse past its time limit gives null, and the parser works again afterwards", async () => {
    const big = "let a = [1, 2, 3];\n".repeat(20_000);
    assert.equal(await parse(big, "javascript", { timeoutMs: 0 }), null);
    const again = await withTree("let a = 1;\n", "javascript", (t) => t.rootNode.hasError);
    assert.equal(again, false);
  });

  test("a 5,000-line file is validated (parsed before and after) in well under 200 ms once the grammar is loaded", async () => {
    const chunk = (i: number) =>
      `export function f${i}(a: number, b: string): string {\n  const x = a * 2 + ${i};\n  if (x > 10) {\n    return b.repeat(x);\n  }\n  return \`\${b}:\${x}\`;\n}\n\n`;
    const before = Array.from({ length: 625 }, (_, i) => chunk(i)).join("");
    assert.equal(before.split("\n").length, 5001);
    const bad = before.replace("const x = a * 2 + 300;", "const x = a * 2 + (300;");
    await loadLanguage("typescript");
    await validateEdit("big.ts", before, before.replace("+ 1;", "+ 2;")); // warm-up
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const r = await validateEdit("big.ts", before, bad);
      best = Math.min(best, performance.now() - t0);
      assert.equal(r.introduced.length, 1);
      assert.equal(r.introduced[0].line, 2402);
    }
    assert.ok(best < 200, `took ${best.toFixed(0)} ms`);
  });
});
