// grep (search_dir) and grep-file (search_file), backed by the real ripgrep:
// `path:line: text` / `<line>: text`, ignore-case, context, glob, fixed
// strings, output modes, multiline, a cap with a truncation line saying how
// many were left out, a per-line length cap, --ids, clear regex errors, a timeout.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { rgPath, runRg } from "../../src/tools/shared/ripgrep.ts";
import { GREP_DEFAULT_CAP, GREP_MAX_LINE_CHARS, MAX_LINE_CHARS } from "../../src/base/limits.ts";
import { lines, rt, rtBatch, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

const sorted = (s: string) => s.trimEnd().split("\n").sort();

function tree() {
  return tempTree({
    "src/app.ts": "import x from 'y';\nconst Needle = 1;\nfunction find() {\n  return needle;\n}\n",
    "src/util.ts": "export const needle = 2;\n",
    "src/style.css": ".needle { color: red }\n",
    "docs/guide.md": "# Guide\nSearch for a needle here.\n",
    README: "no match in here\n",
    ".hidden/conf.ts": "const needle = 'hidden files are searched';\n",
    ".gitignore": "ignored/\n*.log\n",
    "ignored/x.ts": "const needle = 'ignored';\n",
    "debug.log": "needle in a log\n",
    "node_modules/pkg/index.ts": "const needle = 'dependency';\n",
    ".git/config": "needle in git\n",
    ".venv/lib.py": "needle = 'venv'\n",
  });
}

function inProc(root: string) {
  const w = createWorkspace({ root, env: {} });
  return (tool: string, args: Record<string, unknown>) => callTool(w, tool, args);
}

test("content mode: path:line: text; .gitignore honored (no git needed), .git/, node_modules/ and venvs skipped", async () => {
  const root = tree();
  const r = await rt(["grep", "needle"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(sorted(r.stdout), [
    ".hidden/conf.ts:1: const needle = 'hidden files are searched';",
    "docs/guide.md:2: Search for a needle here.",
    "src/app.ts:4:   return needle;",
    "src/style.css:1: .needle { color: red }",
    "src/util.ts:1: export const needle = 2;",
  ]);
  const res = await inProc(root)("grep", { pattern: "needle", path: "src" });
  assert.equal(res.success, true);
  assert.equal(res.count, 3);
  assert.equal(res.truncated, false);
  assert.deepEqual((res.matches as Array<Record<string, unknown>>).map((m) => `${m.file}:${m.line}`).sort(), [
    "src/app.ts:4",
    "src/style.css:1",
    "src/util.ts:1",
  ]);
});

test("-i, --glob, -F, a path argument, and a file path", async () => {
  const root = tree();
  const i = await rtMain(["grep", "-i", "NEEDLE", "src"], { cwd: root });
  assert.deepEqual(sorted(i.stdout), [
    "src/app.ts:2: const Needle = 1;",
    "src/app.ts:4:   return needle;",
    "src/style.css:1: .needle { color: red }",
    "src/util.ts:1: export const needle = 2;",
  ]);
  const g = await rtMain(["grep", "needle", "--glob", "*.ts"], { cwd: root });
  assert.deepEqual(sorted(g.stdout), [
    ".hidden/conf.ts:1: const needle = 'hidden files are searched';",
    "src/app.ts:4:   return needle;",
    "src/util.ts:1: export const needle = 2;",
  ]);
  const g2 = await rtMain(["grep", "needle", "-g", "src/**/*.css"], { cwd: root });
  assert.equal(g2.stdout, "src/style.css:1: .needle { color: red }\n");
  const f = tempTree({ "a.txt": "call f(x.y)\ncall fAxBy)\n" });
  const fixed = await rtMain(["grep", "-F", "f(x.y)"], { cwd: f });
  assert.equal(fixed.stdout, "a.txt:1: call f(x.y)\n");
  const one = await rtMain(["grep", "needle", "src/util.ts"], { cwd: root });
  assert.equal(one.stdout, "1: export const needle = 2;\n", "a single file prints <line>: text");
});

test("--glob never brings back ignored or skipped files; exclusions and path globs work", async () => {
  const root = tempTree({
    ".gitignore": "dist/\n",
    "src/a.ts": "needle\n",
    "src/lib/b.ts": "needle\n",
    "src/c.js": "needle\n",
    "top.ts": "needle\n",
    "sub/.gitignore": "generated.ts\n",
    "sub/generated.ts": "needle\n",
    "dist/d.ts": "needle\n",
    "node_modules/p/i.ts": "needle\n",
    ".git/x.ts": "needle\n",
  });
  const files = async (...extra: string[]) =>
    sorted((await rtMain(["grep", "needle", "-l", ...extra], { cwd: root })).stdout);
  assert.deepEqual(await files("--glob", "*.ts"), ["src/a.ts", "src/lib/b.ts", "top.ts"]);
  assert.deepEqual(await files("--glob", "*"), ["src/a.ts", "src/c.js", "src/lib/b.ts", "top.ts"]);
  assert.deepEqual(await files("--glob", "*.{ts,js}"), ["src/a.ts", "src/c.js", "src/lib/b.ts", "top.ts"]);
  assert.deepEqual(await files("--glob", "**/*.ts"), ["src/a.ts", "src/lib/b.ts", "top.ts"]);
  assert.deepEqual(await files("--glob", "src/**"), ["src/a.ts", "src/c.js", "src/lib/b.ts"]);
  assert.deepEqual(await files("--glob", "src/*.ts"), ["src/a.ts"]);
  assert.deepEqual(
    await files("--glob", "dist/**"),
    [""],
    "nothing on standard output (the reason is on standard error)",
  );
  assert.deepEqual(await files("--glob", "!*.js"), ["src/a.ts", "src/lib/b.ts", "top.ts"]);
  const content = await rtMain(["grep", "needle", "--glob", "src/**/*.ts"], { cwd: root });
  assert.deepEqual(sorted(content.stdout), ["src/a.ts:1: needle", "src/lib/b.ts:1: needle"]);
  const count = await rtMain(["grep", "needle", "-c", "--glob", "**/b.ts"], { cwd: root });
  assert.equal(count.stdout, "src/lib/b.ts:1\n");
});

test("-C N: context lines as path-line- text, groups separated by --", async () => {
  const root = tempTree({ "c.txt": lines(20, (i) => (i === 5 || i === 15 ? `hit ${i}` : `ctx ${i}`)) });
  const r = await rtMain(["grep", "hit", "-C", "1"], { cwd: root });
  assert.equal(
    r.stdout,
    "c.txt-4- ctx 4\nc.txt:5: hit 5\nc.txt-6- ctx 6\n--\nc.txt-14- ctx 14\nc.txt:15: hit 15\nc.txt-16- ctx 16\n",
  );
  const gf = await rtMain(["grep-file", "hit", "c.txt", "-C", "2"], { cwd: root });
  assert.equal(
    gf.stdout,
    "3- ctx 3\n4- ctx 4\n5: hit 5\n6- ctx 6\n7- ctx 7\n--\n13- ctx 13\n14- ctx 14\n15: hit 15\n16- ctx 16\n17- ctx 17\n",
  );
});

test("-l lists files, -c counts per file, each capped with a truncation line", async () => {
  const files: Record<string, string> = {};
  for (let i = 1; i <= 5; i++) files[`f${i}.txt`] = lines(i, () => "match");
  const root = tempTree(files);
  const l = await rtMain(["grep", "match", "-l"], { cwd: root });
  assert.deepEqual(sorted(l.stdout), ["f1.txt", "f2.txt", "f3.txt", "f4.txt", "f5.txt"]);
  const c = await rtMain(["grep", "match", "-c"], { cwd: root });
  assert.deepEqual(sorted(c.stdout), ["f1.txt:1", "f2.txt:2", "f3.txt:3", "f4.txt:4", "f5.txt:5"]);
  const call = inProc(root);
  const lc = await call("grep", { pattern: "match", output_mode: "files_with_matches", limit: 2 });
  const lo = (lc.output as string).split("\n");
  assert.equal(lo.length, 3);
  assert.equal(lo[2], "... truncated (3 more files)");
  assert.deepEqual([lc.count, lc.truncated], [5, true]);
  const cc = await call("grep", { pattern: "match", output_mode: "count", limit: 2 });
  const co = (cc.output as string).split("\n");
  assert.equal(co.length, 3);
  assert.equal(co[2], "... truncated (3 more files)");
  assert.deepEqual([cc.count, cc.truncated], [15, true]);
  const both = await rtMain(["grep", "match", "-l", "-c"], { cwd: root });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /-l and -c cannot be combined/);
});

test("-U: a pattern may span lines", async () => {
  const root = tempTree({ "m.ts": "function a() {\n  return 1;\n}\nfunction b() {}\n" });
  const r = await rtMain(["grep", "-U", "a\\(\\) \\{\\n\\s+return"], { cwd: root });
  assert.equal(r.stdout, "m.ts:1: function a() {\nm.ts:2:   return 1;\n");
  const plain = await rtMain(["grep", "a\\(\\) \\{\\n\\s+return"], { cwd: root });
  assert.equal(plain.code, 1, "without -U a \\n in the pattern is an error from ripgrep");
  assert.match(plain.stderr, /grep failed: .*\n?.*multiline|literal "\\n" is not allowed/);
});

test("the cap: default 200 matches, then a line saying how many were left out", async () => {
  const root = tempTree({ "many.txt": lines(250, (i) => `hit ${i}`) });
  assert.equal(GREP_DEFAULT_CAP, 200);
  const r = await rtMain(["grep", "hit"], { cwd: root });
  const out = r.stdout.trimEnd().split("\n");
  assert.equal(out.length, 201);
  assert.equal(out[0], "many.txt:1: hit 1");
  assert.equal(out[199], "many.txt:200: hit 200");
  assert.equal(
    out[200],
    "... truncated: showing 200 of 250 matches (the first in path order; 50 more); narrow the pattern or path, or raise limit",
  );
  const l = await rtMain(["grep", "hit", "--limit", "3"], { cwd: root });
  assert.equal(
    l.stdout,
    "many.txt:1: hit 1\nmany.txt:2: hit 2\nmany.txt:3: hit 3\n... truncated: showing 3 of 250 matches (the first in path order; 247 more); narrow the pattern or path, or raise limit\n",
  );
  const res = await inProc(root)("grep-file", { pattern: "hit", path: "many.txt", limit: 249 });
  assert.deepEqual([res.count, res.truncated, (res.matches as unknown[]).length], [250, true, 249]);
  assert.match(
    res.output as string,
    /\n\.\.\. truncated: showing 249 of 250 matches \(the first in path order; 1 more\);/,
  );
});

test("long match lines are cut at the per-line cap, in the output and in the metadata", async () => {
  const medium = `start needle ${"x".repeat(1000)}`;
  const long = `start needle ${"y".repeat(3000)}`;
  const root = tempTree({ "w.txt": `${medium}\n${long}\n` });
  const r = await rtMain(["grep", "needle"], { cwd: root });
  assert.equal(
    r.stdout,
    `w.txt:1: ${medium.slice(0, GREP_MAX_LINE_CHARS)}… [line cut: ${medium.length - GREP_MAX_LINE_CHARS} more characters]\n` +
      `w.txt:2: ${long.slice(0, GREP_MAX_LINE_CHARS)}… [line cut: longer than ${MAX_LINE_CHARS} bytes]\n`,
  );
  const res = await inProc(root)("grep", { pattern: "needle" });
  const [m1, m2] = res.matches as Array<{ content: string }>;
  assert.equal(m1.content, medium, "a line under the metadata cap is whole");
  assert.equal(
    m2.content,
    `${long.slice(0, MAX_LINE_CHARS)}… [line cut: longer than ${MAX_LINE_CHARS} bytes]`,
    "a longer one is cut there",
  );
});

test("--ids: each match carries its line ID", async () => {
  const root = tempTree({ "a.ts": "}\nconst a = 1;\n}\n" });
  const ids = (await inProc(root)("read", { path: "a.ts", ids: true })).line_ids as string[];
  const r = await rtMain(["grep", "^}$", "--ids"], { cwd: root });
  assert.equal(r.stdout, `a.ts:1:[LID:${ids[0]}]: }\na.ts:3:[LID:${ids[2]}]: }\n`);
  const res = await inProc(root)("grep", { pattern: "const", ids: true });
  assert.deepEqual(res.matches, [{ file: "a.ts", line: 2, content: "const a = 1;", line_id: ids[1] }]);
});

test("a bad regex is a tool error naming the problem, with a hint about fixed strings", async () => {
  const root = tree();
  const r = await rtMain(["grep", "foo(bar"], { cwd: root });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^rt grep: grep failed: rg: regex parse error:/);
  assert.match(r.stderr, /unclosed group/);
  assert.match(r.stderr, /\(if you meant the text literally, set fixed_strings\)\n$/);
  const ok = await rtMain(["grep", "-F", "foo(bar"], { cwd: root });
  assert.equal(ok.code, 1, "a valid search that found nothing: exit 1, like grep");
  assert.equal(ok.stdout, "");
  assert.equal(ok.stderr, 'rt grep: no matches for "foo(bar"\n');
  const res = await inProc(root)("grep", { pattern: "[z-a]" });
  assert.equal(res.success, false);
  assert.equal(res.error_type, "tool");
  assert.match(res.error as string, /regex parse error/);
});

test("no matches: a success with a message for the tools; exit 1 for rt grep, like grep and rg; a missing path is an error", async () => {
  const root = tree();
  const r = await rtMain(["grep", "zzzznothing", "src"], { cwd: root });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr, 'rt grep: no matches for "zzzznothing" in src\n');
  const t = await inProc(root)("grep", { pattern: "zzzznothing", path: "src" });
  assert.deepEqual([t.success, t.output, t.count], [true, 'no matches for "zzzznothing" in src', 0]);
  for (const args of [["-l"], ["-c"]]) {
    const x = await rtMain(["grep", "zzzznothing", ...args], { cwd: root });
    assert.deepEqual([x.code, x.stdout], [1, ""], args.join(" "));
  }
  const m = await rtMain(["grep", "x", "nope"], { cwd: root });
  assert.equal(m.code, 1);
  assert.equal(m.stderr, "rt grep: nope: no such file or directory\n");
  const l = await inProc(root)("grep", { pattern: "zzzz", output_mode: "files_with_matches" });
  assert.equal(l.output, 'no files match "zzzz"');
});

test("CRLF files: no carriage returns in the output, and $ anchors work", async () => {
  const root = tempTree({ "w.txt": "alpha end\r\nbeta\r\nend here\r\n" });
  const r = await rtMain(["grep", "end$"], { cwd: root });
  assert.equal(r.stdout, "w.txt:1: alpha end\n");
  const gf = await rtMain(["grep-file", "a$", "w.txt", "-C", "1"], { cwd: root });
  assert.equal(gf.stdout, "1- alpha end\n2: beta\n3- end here\n");
});

test("grep-file: <line>: text within one file, any size, refusing directories", async () => {
  const root = tempTree({
    "src/a.py": "def f():\n    return 1\n\ndef g():\n    return 2\n",
    "src/b.py": "def f(): pass\n",
  });
  const r = await rtMain(["grep-file", "^def", "src/a.py"], { cwd: root });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "1: def f():\n4: def g():\n");
  const i = await rtMain(["grep-file", "RETURN 2", "src/a.py", "-i"], { cwd: root });
  assert.equal(i.stdout, "5:     return 2\n");
  const d = await rtMain(["grep-file", "def", "src"], { cwd: root });
  assert.equal(d.code, 1);
  assert.match(d.stderr, /src: is a directory/);
  const none = await rtMain(["grep-file", "zzz", "src/a.py"], { cwd: root });
  assert.deepEqual([none.code, none.stdout, none.stderr], [1, "", 'rt grep-file: no matches for "zzz" in src/a.py\n']);
  const usage = await rtMain(["grep-file", "def"], { cwd: root });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^rt grep-file: missing PATH\nUsage: rt grep-file PATTERN PATH/);
});

test("rt call: grep, search_dir, grep-file, search_file, grep_file", async () => {
  const root = tempTree({ "a.txt": "one\ntwo\nthree\n" });
  const { results } = await rtBatch(
    [
      { tool: "grep", args: { pattern: "t" } },
      { tool: "search_dir", args: { pattern: "t" } },
      { tool: "grep-file", args: { pattern: "t", path: "a.txt" } },
      { tool: "search_file", args: { pattern: "t", path: "a.txt" } },
      { tool: "grep_file", args: { pattern: "t", path: "a.txt" } },
      { tool: "grep", args: { pattern: "t", output_mode: "lines" } },
    ],
    { cwd: root },
  );
  assert.equal(results[0].output, "a.txt:2: two\na.txt:3: three");
  assert.deepEqual(results[1], results[0]);
  assert.equal(results[2].output, "2: two\n3: three");
  assert.deepEqual(results[3], results[2]);
  assert.deepEqual(results[4], results[2]);
  assert.equal(results[5].error_type, "usage");
  assert.match(results[5].error, /output_mode/);
});

test("runRg kills ripgrep after the timeout and says so", async () => {
  const root = tempTree();
  execFileSync("mkfifo", [path.join(root, "pipe")]); // reading it blocks forever
  const t0 = Date.now();
  const run = await runRg(["--no-config", "needle", "pipe"], root, 300, () => {});
  assert.equal(run.timedOut, true);
  assert.ok(Date.now() - t0 < 5000);
  const quick = await runRg(["--version"], root, 10_000, () => {});
  assert.deepEqual([quick.exitCode, quick.timedOut], [0, false]);
  assert.ok(fs.existsSync(rgPath()), "ripgrep comes from the npm package");
});
