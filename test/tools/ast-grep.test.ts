// ast_grep: structural search with meta-variables, rewrites applied through the
// workspace (syntax validation, journal, undo), all-or-nothing over several
// files, refused in safe-read-only, and the identity rewrite as an invariant
// over real files (Python's standard library, rt's own sources).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { rewriteText, findMatches } from "../../src/parsers/astGrep.ts";
import { REPO, rt, tempTree, treeHash } from "../helpers.ts";

const PYLIB = "/root/.pyenv/versions/3.11.7/lib/python3.11";

function project() {
  return tempTree({
    "pkg/a.py": "def old(a, b):\n    return a + b\n\n\nx = old(1, 2)\n",
    "pkg/b.py": "from pkg.a import old\n\nprint(old(3, 4))\n",
    "pkg/c.py": "import pkg.a as a\n\nvalue = a.old(5, 6)\n",
    "web/app.ts":
      "function greet(name: string, loud?: boolean) {\n  console.log('hi', name);\n}\ngreet('a');\ngreet('b', true);\n",
  });
}

test("search: path:line: text, and what each meta-variable matched ($X one node, $$$X many)", async () => {
  const root = project();
  const ws = createWorkspace({ root, state: false });
  const r = await callTool(ws, "ast_grep", { pattern: "greet($NAME, $$$REST)", path: "web" });
  assert.equal(r.success, true, r.error);
  assert.equal(r.output, "web/app.ts:5: greet('b', true);\n    $NAME='b'  $REST=true");
  const all = await callTool(ws, "ast_grep", { pattern: "greet($$$ARGS)" });
  assert.equal(all.count, 2);
  assert.deepEqual(
    (all.matches as Array<{ vars: Record<string, string> }>).map((m) => m.vars.ARGS),
    ["'a'", "'b', true"],
  );
  const py = await callTool(ws, "ast_search", { pattern: "def $F($$$ARGS): $$$BODY", lang: "python" });
  assert.equal(py.output, "pkg/a.py:1: def old(a, b):\n    $F=old  $ARGS=a, b  $BODY=return a + b");
  const log = await callTool(ws, "ast_grep", { pattern: "console.log($$$A)", path: "web/app.ts" });
  assert.match(log.output, /^web\/app\.ts:2:   console\.log\('hi', name\);\n    \$A='hi', name$/);
});

test("bad input: unknown language, invalid pattern, undefined template variable: clear errors, nothing changed", async () => {
  const root = project();
  const before = treeHash(root);
  const ws = createWorkspace({ root, state: true });
  assert.match(
    (await callTool(ws, "ast_grep", { pattern: "x", lang: "cobol" })).error!,
    /unknown lang "cobol": use one of .*python/,
  );
  assert.match(
    (await callTool(ws, "ast_grep", { pattern: "a; b", lang: "ts" })).error!,
    /not valid ast-grep syntax.*Multiple AST nodes/,
  );
  assert.match(
    (await callTool(ws, "ast_grep", { pattern: "old($A)", rewrite: "new($B)" })).error!,
    /rewrite uses \$B, which the pattern "old\(\$A\)" does not define/,
  );
  const broken = await callTool(ws, "ast_grep", { pattern: "greet(", lang: "typescript" });
  assert.match(broken.output, /no matches.*\nnote: the pattern is not complete typescript code/);
  assert.equal(treeHash(root), before);
});

test("rename across three files: applied to all, python compiles them, undo_edit reverts each file", async () => {
  const root = project();
  const original = Object.fromEntries(
    ["a", "b", "c"].map((n) => [n, fs.readFileSync(path.join(root, `pkg/${n}.py`), "utf8")]),
  );
  const ws = createWorkspace({ root, state: true });
  const r = await callTool(ws, "ast_grep", { pattern: "old", rewrite: "renamed", lang: "python", path: "pkg" });
  assert.equal(r.success, true, r.error);
  assert.match(r.output, /^✓ Rewrote 5 matches in 3 files/);
  for (const n of ["a", "b", "c"]) {
    const text = fs.readFileSync(path.join(root, `pkg/${n}.py`), "utf8");
    assert.equal(text, original[n].replaceAll("old", "renamed"));
    execFileSync("python3", [
      "-c",
      "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')",
      path.join(root, `pkg/${n}.py`),
    ]);
  }
  for (const n of ["a", "b", "c"]) {
    const u = await callTool(ws, "undo_edit", { path: `pkg/${n}.py` });
    assert.equal(u.success, true, u.error);
    assert.match(u.output, /Undid the last ast_grep/);
    assert.equal(fs.readFileSync(path.join(root, `pkg/${n}.py`), "utf8"), original[n]);
  }
});

test("a rewrite that would break one file's syntax is refused for every file; all stay byte-identical", async () => {
  const root = project();
  const before = treeHash(root);
  const ws = createWorkspace({ root, state: true });
  // Renaming to a keyword: a.py's `def class(a, b)` is no Python.
  const r = await callTool(ws, "ast_grep", { pattern: "old", rewrite: "class", lang: "python" });
  assert.equal(r.success, false);
  assert.match(r.error!, /rewrite refused: 3 of 3 files would be broken by it; no file was changed/);
  assert.match(r.error!, /pkg\/a\.py: edit rejected/);
  assert.doesNotMatch(r.error!, /force/);
  assert.equal(treeHash(root), before);
});

test("a write failing midway puts back the files written before it, and leaves nothing to undo", async () => {
  const root = project();
  const outside = tempTree({ "evil.py": "old = 1\n" });
  const ws = createWorkspace({ root, state: true });
  const original = fs.readFileSync(path.join(root, "pkg/a.py"));
  const r = await callTool(
    ws,
    "ast_grep",
    { pattern: "old", rewrite: "renamed", lang: "python" },
    {
      onProgress(p) {
        // Between validation and the write of the second file, another program swaps it for a symlink out of the root.
        if (p.kind === "status" && p.message.startsWith("writing pkg/b.py")) {
          fs.rmSync(path.join(root, "pkg/b.py"));
          fs.symlinkSync(path.join(outside, "evil.py"), path.join(root, "pkg/b.py"));
        }
      },
    },
  );
  assert.equal(r.success, false);
  assert.match(r.error!, /rewrite stopped: writing pkg\/b\.py failed .* 1 file written before it was restored/);
  assert.deepEqual(fs.readFileSync(path.join(root, "pkg/a.py")), original);
  assert.equal(fs.readFileSync(path.join(outside, "evil.py"), "utf8"), "old = 1\n");
  assert.match((await callTool(ws, "undo_edit", { path: "pkg/a.py" })).error!, /no rt edit to undo/);
});

test("safe-read-only: search and dry runs work, an applied rewrite is refused", async () => {
  const root = project();
  const before = treeHash(root);
  const ws = createWorkspace({ root, state: false, profile: "safe-read-only" });
  assert.equal((await callTool(ws, "ast_grep", { pattern: "old($$$A)", lang: "py" })).success, true);
  const dry = await callTool(ws, "ast_grep", { pattern: "old", rewrite: "renamed", lang: "py", dry_run: true });
  assert.match(dry.output, /^Dry run: 5 matches in 3 files would be rewritten; nothing written/);
  assert.match(dry.output, /-x = old\(1, 2\)\n\+x = renamed\(1, 2\)/);
  const apply = await callTool(ws, "ast_grep", { pattern: "old", rewrite: "renamed", lang: "py" });
  assert.match(apply.error!, /safe-read-only/);
  assert.equal(treeHash(root), before);
});

test("a capture that began its own line keeps it: a Python body moves with its def", async () => {
  const src = "def f(a):\n    x = a\n    return x\n\n\ndef h(): return 2\n";
  const r = rewriteText(src, "python", "def $F($$$A): $$$B", "def renamed_$F($$$A): $$$B");
  assert.equal(r.text, "def renamed_f(a):\n    x = a\n    return x\n\n\ndef renamed_h(): return 2\n");
  assert.deepEqual(r.regions, [
    { start: 1, end: 3 },
    { start: 6, end: 6 },
  ]);
});

test("invariant: rewriting every match with its own pattern changes nothing (stdlib Python, rt's TypeScript)", async () => {
  const cases: Array<[string, "python" | "typescript", string[]]> = [
    [PYLIB, "python", ["json/decoder.py", "json/encoder.py", "textwrap.py", "shlex.py"]],
    [path.join(REPO, "src"), "typescript", ["workspace/applyEdit.ts", "tools/astGrep.ts", "edit/fileModel.ts"]],
  ];
  const patterns = ["$F($$$ARGS)", "$A.$B", "$X = $Y", "return $V"];
  let total = 0;
  for (const [dir, lang, files] of cases) {
    for (const f of files) {
      const file = path.join(dir, f);
      if (!fs.existsSync(file)) continue;
      const text = fs.readFileSync(file, "utf8");
      for (const p of patterns) {
        const r = rewriteText(text, lang, p, p);
        assert.equal(r.text, text, `${f}: ${p}`);
        total += r.rewritten.length;
        // Every match's text is the source's own slice.
        for (const m of findMatches(text, lang, p).slice(0, 50))
          assert.equal(text.slice(m.start.index, m.end.index), m.text);
      }
    }
  }
  assert.ok(total > 500, `only ${total} matches`);
});

test("rt ast-grep: a dry run by default, --apply writes", async () => {
  const root = project();
  const before = treeHash(root);
  const dry = await rt(["ast-grep", "greet($$$A)", "web", "--rewrite", "welcome($$$A)"], { cwd: root });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^Dry run: 2 matches in 1 file/);
  assert.equal(treeHash(root), before);
  const applied = await rt(["ast-grep", "greet($$$A)", "web", "--rewrite", "welcome($$$A)", "--apply"], { cwd: root });
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(fs.readFileSync(path.join(root, "web/app.ts"), "utf8"), /welcome\('a'\);\nwelcome\('b', true\);/);
  const noRewrite = await rt(["ast-grep", "x", "--apply"], { cwd: root });
  assert.equal(noRewrite.code, 2);
  assert.match(noRewrite.stderr, /--apply needs --rewrite/);
});
