// symbols: outlines checked against each language's own compiler as the
// oracle (Python's ast on the standard library, TypeScript's compiler API on
// rt's own sources), the per-language shapes, line IDs that edit_lines
// accepts, and `rt symbols --grep` across a workspace.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import ts from "typescript";
import { outline } from "../../src/parsers/outline.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { REPO, rt, tempTree } from "../helpers.ts";

const PYLIB = "/root/.pyenv/versions/3.11.7/lib/python3.11";
const PY_FILES = [
  "json/decoder.py",
  "argparse.py",
  "dataclasses.py",
  "asyncio/tasks.py",
  "email/message.py",
  "logging/__init__.py",
];

// Every def/class Python's ast sees: (kind, qualified name, first line incl. decorators, last line).
const AST_DUMP = `
import ast, json, sys
out = []
def visit(node, container, in_class):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([child.lineno] + [d.lineno for d in child.decorator_list])
            kind = "class" if isinstance(child, ast.ClassDef) else ("method" if in_class else "function")
            out.append([kind, ".".join(container + [child.name]), start, child.end_lineno])
            visit(child, container + [child.name], isinstance(child, ast.ClassDef))
        else:
            visit(child, container, in_class)
visit(ast.parse(open(sys.argv[1]).read()), [], False)
print(json.dumps(out))
`;

test("Python: the outline lists exactly the defs and classes of ast, with the same line ranges (stdlib files)", {
  skip: !fs.existsSync(PYLIB),
}, async () => {
  for (const rel of PY_FILES) {
    const file = path.join(PYLIB, rel);
    const expected = JSON.parse(execFileSync("python3", ["-c", AST_DUMP, file], { encoding: "utf8" })) as Array<
      [string, string, number, number]
    >;
    const got = (await outline(fs.readFileSync(file, "utf8"), "python"))!;
    const mine = got.map((s) => [s.kind, [...s.container, s.name].join("."), s.startLine, s.endLine]);
    assert.ok(expected.length > 5, rel);
    assert.deepEqual(mine, expected, rel);
  }
});

/** Classes, functions, methods, interfaces, enums the TypeScript compiler sees in a file. */
function tsDefinitions(file: string): Array<[string, number]> {
  const text = fs.readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<[string, number]> = [];
  const visit = (n: ts.Node) => {
    const named =
      (ts.isClassDeclaration(n) ||
        ts.isFunctionDeclaration(n) ||
        ts.isMethodDeclaration(n) ||
        ts.isInterfaceDeclaration(n) ||
        ts.isEnumDeclaration(n) ||
        ts.isTypeAliasDeclaration(n)) &&
      n.name;
    if (named) out.push([n.name!.getText(sf), sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1]);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test("TypeScript: every class, function, method, interface, enum and type the compiler sees is in the outline at its line (rt's own src/)", async () => {
  const dir = path.join(REPO, "src", "workspace");
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(dir, f));
  let checked = 0;
  for (const file of files) {
    const got = (await outline(fs.readFileSync(file, "utf8"), "typescript"))!;
    const have = new Set(got.map((s) => `${s.name}@${s.startLine}`));
    for (const [name, line] of tsDefinitions(file)) {
      assert.ok(
        have.has(`${name}@${line}`),
        `${path.basename(file)}: ${name} at line ${line} missing; outline: ${[...have].join(", ")}`,
      );
      checked++;
    }
  }
  assert.ok(checked > 100, `only ${checked} definitions checked`);
});

test("every language rt parses has an outline of its definitions", async () => {
  const cases: Array<[Parameters<typeof outline>[1], string, string[]]> = [
    [
      "go",
      "package m\ntype S struct{ a int }\nfunc (s *S) M() {}\nfunc F() {}\n",
      ["struct S", "method M", "function F"],
    ],
    [
      "rust",
      "struct S;\nimpl Display for S {\n  fn fmt(&self) {}\n}\nfn main() {}\n",
      ["struct S", "impl Display for S", "method fmt", "function main"],
    ],
    [
      "cpp",
      "namespace ns {\nclass A {\n  int f(int x) { return x; }\n};\n}\nint *g(void) { return 0; }\n",
      ["namespace ns", "class A", "method f", "function g"],
    ],
    ["c", "struct P { int x; };\nstatic int add(int a, int b) { return a + b; }\n", ["struct P", "function add"]],
    ["java", "class A {\n  A() {}\n  void m() {}\n}\n", ["class A", "constructor A", "method m"]],
    ["csharp", "namespace N { class C { void M() {} } }", ["namespace N", "class C", "method M"]],
    ["ruby", "module M\n  class C\n    def a; end\n  end\nend\n", ["module M", "class C", "method a"]],
    ["php", "<?php\nclass C { function m() {} }\nfunction f() {}\n", ["class C", "method m", "function f"]],
    ["bash", "f() { echo; }\nfunction g { :; }\n", ["function f", "function g"]],
    [
      "javascript",
      "function a() {}\nconst b = () => 1;\nclass K { m() {} }\n",
      ["function a", "function b", "class K", "method m"],
    ],
    ["tsx", "export function App() { return <div/>; }\n", ["function App"]],
    ["css", "a, b > c { color: red }\n", ["rule a, b > c"]],
    ["html", '<div id="main"><p>x</p></div>', ["element div#main"]],
    ["json", '{"a": 1, "b": {"c": 2}}', ["key a", "key b"]],
    ["yaml", "a: 1\nb:\n  c: 2\n", ["key a", "key b"]],
    ["toml", "x = 1\n[pkg]\nname = 'a'\n", ["key x", "table pkg"]],
  ];
  for (const [lang, text, expected] of cases) {
    const got = (await outline(text, lang))!.map((s) => `${s.kind} ${s.name}`);
    assert.deepEqual(got, expected, lang);
  }
});

test("symbols tool: line ranges and line IDs that point at the definitions; edit_lines accepts the IDs", async () => {
  const root = tempTree({
    "a.py": "import os\n\nclass A:\n    def m(self):\n        return 1\n\n\ndef f():\n    pass\n",
  });
  const ws = createWorkspace({ root, state: true });
  const r = await callTool(ws, "symbols", { path: "a.py" });
  assert.equal(r.success, true, r.error);
  assert.match(r.output, /^a\.py: 3 definitions \(9 lines\)/);
  assert.match(r.output, /3-5 +\[LID:\w+\] class A: class A:/);
  assert.match(r.output, /4-5 +\[LID:\w+\]   method m: def m\(self\):/);
  const syms = r.symbols as Array<{ name: string; line_id: string; start_line: number }>;
  const f = syms.find((s) => s.name === "f")!;
  const e = await callTool(ws, "edit_lines", {
    path: "a.py",
    command: "replace",
    start_line: f.line_id,
    end_line: f.line_id,
    new_content: "def g():",
  });
  assert.equal(e.success, true, e.error);
  assert.match(fs.readFileSync(path.join(root, "a.py"), "utf8"), /def g\(\):\n    pass/);
});

test("symbols tool: a directory, a file of no known language, a missing path: clear errors", async () => {
  const root = tempTree({ "src/x.py": "def a(): pass\n", "notes.txt": "hello\n" });
  const ws = createWorkspace({ root, state: false });
  const dir = await callTool(ws, "symbols", { path: "src" });
  assert.match(dir.error!, /is a directory.*grep/);
  const txt = await callTool(ws, "symbols", { path: "notes.txt" });
  assert.match(txt.error!, /not a language rt parses/);
  const none = await callTool(ws, "symbols", { path: "nope.py" });
  assert.match(none.error!, /file not found/);
  const neither = await callTool(ws, "symbols", {});
  assert.match(neither.error!, /give path/);
});

test("rt symbols --grep NAME: definitions across the workspace, exact names first, not mere uses", async () => {
  const root = tempTree({
    "src/a.ts": "export class Parser {\n  parse(text: string) { return text; }\n}\n",
    "src/b.ts": "import { Parser } from './a';\nconst p = new Parser();\np.parse('x');\n",
    "lib/c.py": "class Parser:\n    def parse(self):\n        pass\n\ndef parse_all():\n    pass\n",
    "node_modules/x/index.js": "function parse() {}\n",
  });
  const r = await rt(["symbols", "--grep", "parse"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split("\n");
  assert.deepEqual(lines, [
    "lib/c.py:2-3: method Parser.parse: def parse(self):",
    "src/a.ts:2-2: method Parser.parse: parse(text: string) { return text; }",
    "lib/c.py:1-3: class Parser: class Parser:",
    "lib/c.py:5-6: function parse_all: def parse_all():",
    "src/a.ts:1-3: class Parser: export class Parser {",
  ]);
  const q = await rt(["symbols", "--grep", "Parser.parse", "src"], { cwd: root });
  assert.equal(q.stdout, "src/a.ts:2-2: method Parser.parse: parse(text: string) { return text; }\n");
  const none = await rt(["symbols", "--grep", "Nothing"], { cwd: root });
  assert.match(none.stdout, /no definition named like "Nothing"/);
  const outlineCli = await rt(["symbols", "lib/c.py"], { cwd: root });
  assert.match(outlineCli.stdout, /^lib\/c\.py: 3 definitions/);
});
