// The invariants of issue 10 for validation, each tested against what rt did
// not write:
//   - syntax: no edit adds an error the language's own compiler reports
//     (python3's compile(), `node --check`), over corpora generated from the
//     Python standard library and packages in node_modules;
//   - structure: no edit moves an untouched line into another block;
//   - reuse: validating from the cached, incrementally re-parsed tree gives
//     the same answers as parsing from scratch.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { validateEdit } from "../../src/edit/validate.ts";
import { pythonIndentProblems } from "../../src/edit/pythonIndent.ts";
import { soak } from "../helpers.ts";

const PYLIB = "/root/.pyenv/versions/3.11.7/lib/python3.11";
const python = spawnSync("python3", ["-c", "import sys; print(sys.version_info[0])"], { encoding: "utf8" });
const hasPython = python.status === 0 && python.stdout.trim() === "3";

/** A small deterministic generator (mulberry32). */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Mutations a model's edit can make: a character dropped or added, a line dropped, duplicated or re-indented. */
function mutations(r: (n: number) => number): Array<(s: string) => string> {
  const at = (s: string, ins: string) => {
    const i = r(s.length);
    return s.slice(0, i) + ins + s.slice(i);
  };
  const lines = (s: string, f: (l: string[], i: number) => void) => {
    const l = s.split("\n");
    f(l, r(l.length));
    return l.join("\n");
  };
  return [
    (s) => {
      const i = r(s.length);
      return s.slice(0, i) + s.slice(i + 1);
    },
    (s) => at(s, "'"),
    (s) => at(s, '"'),
    (s) => at(s, "("),
    (s) => at(s, ":"),
    (s) => at(s, "\n"),
    (s) => at(s, " = "),
    (s) => at(s, "}"),
    (s) => lines(s, (l, i) => l.splice(i, 1)),
    (s) => lines(s, (l, i) => l.splice(i, 0, l[r(l.length)])),
    (s) => lines(s, (l, i) => (l[i] = "  " + l[i])),
    (s) => lines(s, (l, i) => (l[i] = l[i].replace(/^ {4}/, ""))),
  ];
}

/** The compiler's verdicts, one process for the whole corpus: null = compiles. */
function pythonVerdicts(sources: string[]): Array<string | null> {
  const script = [
    "import sys, json, warnings",
    "warnings.simplefilter('ignore')",
    "out = []",
    "for line in sys.stdin:",
    "    try:",
    "        compile(json.loads(line), 'f.py', 'exec', dont_inherit=True); out.append(None)",
    "    except (SyntaxError, ValueError) as e:",
    "        out.append(str(e))",
    "print(json.dumps(out))",
  ].join("\n");
  const r = spawnSync("python3", ["-c", script], {
    input: sources.map((s) => JSON.stringify(s)).join("\n") + "\n",
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  return JSON.parse(r.stdout);
}

test("syntax invariant (Python): every edit rt accepts compiles with python3 when the file did (generated on the standard library)", {
  skip: !hasPython && "python3 not installed",
}, async () => {
  const r = rng(20251123);
  const muts = mutations(r);
  const files = fs
    .readdirSync(PYLIB)
    .filter((f) => f.endsWith(".py"))
    .sort();
  // 30 files of the standard library with 10 edits each in `npm test`, 60 in the soak run (the same seed).
  const FILES = soak(30, 60);
  const cases: Array<{ file: string; before: string; after: string }> = [];
  for (let k = 0; k < FILES; k++) {
    const file = files[r(files.length)];
    const before = fs.readFileSync(path.join(PYLIB, file), "utf8");
    if (before.length > 60_000) continue;
    for (let j = 0; j < 10; j++) cases.push({ file, before, after: muts[r(muts.length)](before) });
  }
  const verdicts = pythonVerdicts(cases.flatMap((c) => [c.before, c.after]));
  let checked = 0;
  let rejectedByPython = 0;
  for (let i = 0; i < cases.length; i++) {
    if (verdicts[2 * i] !== null || cases[i].before === cases[i].after) continue;
    checked++;
    const v = await validateEdit(cases[i].file, cases[i].before, cases[i].after);
    const pythonSays = verdicts[2 * i + 1];
    if (pythonSays !== null) rejectedByPython++;
    if (pythonSays !== null)
      assert.ok(v.introduced.length > 0, `${cases[i].file}: Python reports "${pythonSays}" but rt accepted the edit`);
    else
      assert.equal(
        v.introduced.length,
        0,
        `${cases[i].file}: Python compiles it but rt reported ${JSON.stringify(v.introduced[0])}`,
      );
  }
  assert.ok(
    checked > FILES * 6.5 && rejectedByPython > FILES * 1.6,
    `a corpus worth the name (${checked} edits, ${rejectedByPython} breaking)`,
  );
});

/**
 * What `node --check` says of each text, from one Node process for all of them: a CommonJS file is
 * compiled as Node compiles one (vm.compileFunction with the module wrapper's parameters), an ES
 * module as a vm.SourceTextModule; both parse without running anything, as --check does.
 */
function nodeCheckVerdicts(texts: Array<{ text: string; ext: string }>): boolean[] {
  const script = `
    const vm = require("node:vm");
    const texts = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    const ok = texts.map(({ text, ext }) => {
      try {
        if (ext === ".mjs") new vm.SourceTextModule(text);
        else vm.compileFunction(text, ["exports", "require", "module", "__filename", "__dirname"]);
        return true;
      } catch (e) {
        if (e instanceof SyntaxError) return false;
        throw e;
      }
    });
    process.stdout.write(JSON.stringify(ok));`;
  const r = spawnSync(process.execPath, ["--experimental-vm-modules", "--no-warnings", "-e", script], {
    input: JSON.stringify(texts),
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as boolean[];
}

test("syntax invariant (JavaScript): every edit rt accepts passes `node --check` when the file did (generated on node_modules)", async () => {
  const r = rng(77);
  const muts = mutations(r);
  const dirs = ["node_modules/diff/libcjs", "node_modules/pg/lib", "node_modules/zod/v4/core"];
  const files = dirs
    .flatMap((d) =>
      (fs.readdirSync(d, { recursive: true }) as string[]).filter((f) => /\.c?js$/.test(f)).map((f) => path.join(d, f)),
    )
    .sort();
  // The files and their edits first, then one Node process checks them all (nodeCheckVerdicts).
  const cases: Array<{ file: string; ext: string; before: string; after: string }> = [];
  const picked: Array<{ file: string; ext: string; before: string }> = [];
  for (let k = 0; k < 14; k++) {
    const file = files[r(files.length)];
    const before = fs.readFileSync(file, "utf8");
    const ext = file.endsWith(".cjs") || file.includes("libcjs") || file.includes("pg/lib") ? ".cjs" : ".mjs";
    if (before.length > 60_000) continue;
    picked.push({ file, ext, before });
    for (let j = 0; j < 8; j++) {
      const after = muts[r(muts.length)](before);
      if (after !== before) cases.push({ file, ext, before, after });
    }
  }
  const beforeOk = new Map(picked.map((p, i) => [p.file, i]));
  const verdicts = nodeCheckVerdicts([
    ...picked.map((p) => ({ text: p.before, ext: p.ext })),
    ...cases.map((c) => ({ text: c.after, ext: c.ext })),
  ]);
  let checked = 0;
  let broken = 0;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    if (!verdicts[beforeOk.get(c.file)!]) continue;
    const nodeOk = verdicts[picked.length + i];
    const v = await validateEdit(`x${c.ext === ".cjs" ? ".js" : ".mjs"}`, c.before, c.after);
    checked++;
    if (!nodeOk) broken++;
    if (!nodeOk) assert.ok(v.introduced.length > 0, `${c.file}: node --check rejects the edit but rt accepted it`);
    else
      assert.equal(
        v.introduced.length,
        0,
        `${c.file}: node --check accepts it but rt reported ${JSON.stringify(v.introduced[0])}`,
      );
  }
  // The batched oracle is node --check itself: a few of the same texts, one process each, agree with it.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rt-jscheck-"));
  try {
    const samples = [0, 1, 2, 3].map((k) => picked.length + Math.floor((k * cases.length) / 4));
    const broke = verdicts.findIndex((ok, i) => i >= picked.length && !ok);
    for (const i of [...samples, ...(broke >= 0 ? [broke] : [])]) {
      const c = cases[i - picked.length];
      const f = path.join(tmp, `x${c.ext}`);
      fs.writeFileSync(f, c.after);
      assert.equal(
        spawnSync(process.execPath, ["--check", f]).status === 0,
        verdicts[i],
        `${c.file}: the batched check and node --check disagree`,
      );
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  assert.ok(checked > 60 && broken > 15, `a corpus worth the name (${checked} edits, ${broken} breaking)`);
});

test("V8 reports what tree-sitter-javascript accepts: a redeclared let, a const without initializer", async () => {
  const base = "let a = 1;\nfunction f() {\n  return a;\n}\n";
  const redeclared = await validateEdit(
    "m.js",
    base,
    base.replace("  return a;", "  let b = 1;\n  let b = 2;\n  return a;"),
  );
  assert.equal(redeclared.introduced.length, 1);
  assert.match(redeclared.introduced[0].message ?? "", /already been declared.*V8 reports/);
  const noInit = await validateEdit("m.js", base, base.replace("let a = 1;", "const a;"));
  assert.match(noInit.introduced[0]?.message ?? "", /Missing initializer/);
  // Module code is not a script: left to tree-sitter, never refused for its import.
  const mod = "import x from './x.js';\nexport const y = x;\n";
  assert.equal((await validateEdit("m.js", mod, mod.replace("y = x", "y = x + 1"))).introduced.length, 0);
});

test("Python reports what tree-sitter-python accepts: `x = a:b`, a walrus statement, an unterminated string", {
  skip: !hasPython && "python3 not installed",
}, async () => {
  const base = "def f(a):\n    x = a.b\n    return x\n";
  for (const bad of [base.replace("a.b", "a:b"), base.replace("x = a.b", "x := a.b"), base.replace("a.b", "'a.b")]) {
    const v = await validateEdit("m.py", base, bad);
    assert.ok(v.introduced.length >= 1, JSON.stringify(bad));
  }
});

test("the Python scanner reports an unterminated string, as Python does, even without python3", () => {
  assert.match(
    pythonIndentProblems("x = 'abc\ny = 2\n")[0]?.message ?? "",
    /unterminated string literal \(detected at line 1\)/,
  );
  assert.match(
    pythonIndentProblems('x = """abc\ny = 2\n')[0]?.message ?? "",
    /unterminated triple-quoted string literal/,
  );
  assert.deepEqual(pythonIndentProblems("x = 'a\\\nb'\ny = rf'\\{{x}}'\nz = f'{a!r:>{w}}'\n"), []);
});

test("the scanner reports nothing on the standard library (no false alarm blocks an edit)", () => {
  let files = 0;
  for (const f of (fs.readdirSync(PYLIB, { recursive: true }) as string[]).filter(
    (x) =>
      x.endsWith(".py") &&
      !/bad|lib2to3\/tests\/data|test_(grammar|tokenize|fstring|string_literals|unparse|syntax|eof)/.test(x),
  )) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(PYLIB, f), "utf8");
    } catch {
      continue;
    }
    files++;
    assert.deepEqual(pythonIndentProblems(text), [], f);
    if (files >= 3000) break;
  }
  assert.ok(files > 500 || !fs.existsSync(PYLIB));
});

// ------------------------------------------------------------------ structure

test("structure: `if name:` written at the level of the `else:` below takes it away from its `if` (issue 10, class 3a)", async () => {
  const before = "def f(name):\n    if ok:\n        x()\n        z()\n    else:\n        w()\n";
  const wrong = "def f(name):\n    if ok:\n        x()\n    if name:\n        z()\n    else:\n        w()\n";
  const v = await validateEdit("m.py", before, wrong);
  assert.equal(v.introduced.length, 1);
  assert.match(
    v.introduced[0].message ?? "",
    /line 5 .*z\(\).* would no longer be inside the if statement that starts at line 2/,
  );
  const right = "def f(name):\n    if ok:\n        x()\n        if name:\n            z()\n    else:\n        w()\n";
  assert.equal((await validateEdit("m.py", before, right)).introduced.length, 0);
});

test("structure: a line moved out of an except block by a dedented insertion is caught; wrapping lines in braces is not", async () => {
  const before = "try:\n    a()\nexcept E:\n    b()\n    c()\nd()\n";
  // `x()` inserted at the try level ends the except block early: `c()` ... would be an unexpected indent (a syntax error),
  // so the untouched d() is the one to watch: a new `for` at column 0 before it must not swallow it.
  const swallowed = "try:\n    a()\nexcept E:\n    b()\n    c()\nfor i in r:\n    pass\nd()\n";
  assert.equal((await validateEdit("m.py", before, swallowed)).introduced.length, 0, "d() stays at module level");
  const ts = "function f() {\n  a();\n  b();\n}\n";
  const wrapped = "function f() {\n  if (x) {\n  a();\n  b();\n  }\n}\n";
  assert.equal(
    (await validateEdit("m.ts", ts, wrapped)).introduced.length,
    0,
    "new braces around untouched lines are the edit's own block",
  );
  const stolen = "if a:\n    x()\nelse:\n    y()\n";
  const rebound = "if a:\n    x()\nif b:\n    pass\nelse:\n    y()\n";
  assert.match(
    (await validateEdit("m.py", stolen, rebound)).introduced[0]?.message ?? "",
    /else.* would no longer be inside the if statement that starts at line 1/,
  );
});

test("structure: inserting a statement at the top of a block (its start moves) is no violation", async () => {
  const before = "class A:\n    def f(self):\n        a = 1\n        return a\n";
  const after = "class A:\n    def f(self):\n        log()\n        a = 1\n        return a\n";
  assert.equal((await validateEdit("m.py", before, after)).introduced.length, 0);
  const yaml = "root:\n  a: 1\n  b: 2\n";
  assert.equal((await validateEdit("m.yaml", yaml, "root:\n  z: 0\n  a: 1\n  b: 2\n")).introduced.length, 0);
});

// ------------------------------------------------------------------ reuse

test("validating from the cached tree (incremental parse) gives the same answers as parsing from scratch", async () => {
  const r = rng(5);
  const muts = mutations(r);
  let text = fs.readFileSync("src/edit/match.ts", "utf8");
  for (let k = 0; k < 40; k++) {
    const next = muts[r(muts.length)](text);
    const warm = await validateEdit("a.ts", text, next);
    // A comment line put before both makes the cache miss: a cold parse of both. (Put after them, it
    // moved the end of the text, where a missing closing brace is reported.) Lines are one lower there;
    // an error that starts at the top of the text takes the comment line in, and is reported on it.
    const cold = await validateEdit("b.ts", "// cold\n" + text, "// cold\n" + next);
    assert.deepEqual(
      warm.introduced.map((p) => [p.line, p.kind]),
      cold.introduced.map((p) => [Math.max(1, p.line - 1), p.kind]),
      `step ${k}`,
    );
    if (warm.introduced.length === 0) text = next;
  }
});
