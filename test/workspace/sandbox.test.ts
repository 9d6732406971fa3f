// Sandbox escapes through the real `rt` binary, its commands and `rt call`:
// each attempt is refused with a clear error (exit 1) and leaves every file,
// inside the root and outside it, exactly as it was (no state written either).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, rtBatch, rtCall, tempTree, treeHash } from "../helpers.ts";

const SECRET = "TOPSECRET-outside-content";

/** parent/{x (the root), x-evil, outside}; the root holds links that lead out. */
function layout() {
  const parent = tempTree({
    "x/file.txt": "inside\n",
    "x/src/app.ts": "export const app = 1;\n",
    "x-evil/secret.txt": `${SECRET}\n`,
    "outside/secret.txt": `${SECRET}\n`,
  });
  const root = path.join(parent, "x");
  fs.symlinkSync(path.join(parent, "outside", "secret.txt"), path.join(root, "leak.txt"));
  fs.symlinkSync(path.join(parent, "outside"), path.join(root, "linkdir"));
  fs.symlinkSync(path.join(parent, "nowhere"), path.join(root, "dangling"));
  fs.symlinkSync("..", path.join(root, "up"));
  return { parent, root };
}

/** File paths that lead outside, each with what the refusal must say. */
function fileEscapes(parent: string): Array<[string, RegExp]> {
  const out = /outside the workspace root/;
  return [
    ["../outside/secret.txt", out],
    [path.join(parent, "outside", "secret.txt"), out],
    ["/etc/passwd", out],
    ["leak.txt", /outside the workspace root .*symbolic link/],
    ["linkdir/secret.txt", /outside the workspace root .*symbolic link/],
    ["dangling", /symbolic link to .* does not exist/],
    [path.join(parent, "x-evil", "secret.txt"), out],
    ["../x-evil/secret.txt", out],
    ["up/x-evil/secret.txt", out],
    ["linkdir/not-yet-there.txt", out],
    ["dangling/new.txt", /does not exist/],
  ];
}

function dirEscapes(parent: string): Array<[string, RegExp]> {
  const out = /outside the workspace root/;
  return [
    ["..", out],
    [path.join(parent, "outside"), out],
    [path.join(parent, "x-evil"), out],
    ["linkdir", out],
    ["up", out],
    ["dangling", /does not exist/],
  ];
}

test("every command refuses every escape through the CLI, exit 1, nothing touched", async () => {
  const { parent, root } = layout();
  const before = treeHash(parent, []);
  const jobs: Array<() => Promise<void>> = [];
  const check = (args: string[], why: RegExp) =>
    jobs.push(() =>
      rt(args, { cwd: root }).then((r) => {
        assert.equal(r.code, 1, `rt ${args.join(" ")} should exit 1; stderr: ${r.stderr}`);
        assert.match(r.stderr, why, `rt ${args.join(" ")}`);
        assert.equal(r.stderr.trim().split("\n").length, 1, `one-line error for rt ${args.join(" ")}: ${r.stderr}`);
        assert.doesNotMatch(r.stdout + r.stderr, new RegExp(SECRET));
      }),
    );
  // Every escape through read; every other command with the trickiest ones
  // (symlinked parent, prefix trick, dangling link). rt call below covers every pair.
  const files = fileEscapes(parent);
  for (const [p, why] of files) check(["read", p], why);
  for (const [p, why] of [files[4], files[6], files[5]]) {
    check(["open", p], why);
    check(["open", `${p}:1`], why);
    check(["open", `${p}:1-5`], why);
    check(["scroll", p, "+"], why);
    check(["grep-file", "SECRET", p], why);
    check(["grep", "SECRET", p], why);
  }
  const dirs = dirEscapes(parent);
  for (const [p, why] of dirs) check(["ls", p], why);
  for (const [p, why] of [dirs[2], dirs[3]]) {
    check(["ls", p, "--tree"], why);
    check(["find", "secret", p], why);
    check(["grep", "SECRET", p], why);
  }
  // Four at a time keeps the machine responsive.
  for (let i = 0; i < jobs.length; i += 4) await Promise.all(jobs.slice(i, i + 4).map((j) => j()));
  assert.equal(treeHash(parent, []), before, "no file inside or outside the root changed, and no state was written");
  assert.equal(fs.existsSync(path.join(root, ".rt")), false);
});

test("the prefix trick through --root: /…/x-evil is refused when the root is /…/x", async () => {
  const { parent, root } = layout();
  const before = treeHash(parent, []);
  const r = await rt(["--root", root, "read", path.join(parent, "x-evil", "secret.txt")], { cwd: parent });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /outside the workspace root/);
  const call = await rtCall("read", { path: `${root}-evil/secret.txt` }, { cwd: root });
  assert.equal(call.code, 1);
  assert.equal(call.result.success, false);
  assert.match(call.result.error, /outside the workspace root/);
  assert.equal(treeHash(parent, []), before);
});

test("rt call refuses escapes and NUL bytes for every path-taking tool, nothing touched", async () => {
  const { parent, root } = layout();
  const before = treeHash(parent, []);
  const requests: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const expected: RegExp[] = [];
  const files = [...fileEscapes(parent), ["file.txt\u0000.png", /NUL byte/] as [string, RegExp]];
  for (const [p, why] of files) {
    for (const [tool, args] of [
      ["read", { path: p }],
      ["read_file", { path: p, ids: true }],
      ["open", { path: p }],
      ["open_file_chunk", { path: p, line: 3 }],
      ["scroll", { path: p, direction: "+" }],
      ["scroll_file", { path: p, direction: "-" }],
      ["grep-file", { pattern: "SECRET", path: p }],
      ["search_file", { pattern: "SECRET", path: p }],
      ["grep", { pattern: "SECRET", path: p }],
    ] as const) {
      requests.push({ tool, args });
      expected.push(why);
    }
  }
  for (const [p, why] of [...dirEscapes(parent), ["sub\u0000dir", /NUL byte/] as [string, RegExp]]) {
    for (const [tool, args] of [
      ["ls", { path: p }],
      ["ls", { path: p, tree: true }],
      ["find", { pattern: "secret", path: p }],
      ["find_file", { pattern: "*.txt", path: p }],
      ["search_dir", { pattern: "SECRET", path: p }],
    ] as const) {
      requests.push({ tool, args });
      expected.push(why);
    }
  }
  const { code, results } = await rtBatch(requests, { cwd: root });
  assert.equal(code, 0);
  assert.equal(results.length, requests.length);
  results.forEach((r, i) => {
    const what = JSON.stringify(requests[i]);
    assert.equal(r.success, false, what);
    assert.equal(r.error_type, "tool", what);
    assert.match(r.error, expected[i], what);
    assert.doesNotMatch(JSON.stringify(r), new RegExp(SECRET), what);
  });
  // Single calls: exit code 1 and the error in the JSON result.
  for (const [p, why] of fileEscapes(parent).slice(0, 6)) {
    const r = await rtCall("read", { path: p }, { cwd: root });
    assert.equal(r.code, 1, p);
    assert.equal(r.result.success, false);
    assert.match(r.result.error, why);
  }
  const nul = await rtCall("open", { path: "file.txt\u0000" }, { cwd: root });
  assert.equal(nul.code, 1);
  assert.match(nul.result.error, /NUL byte/);
  assert.equal(treeHash(parent, []), before);
  assert.equal(fs.existsSync(path.join(root, ".rt")), false);
});

test("searches from the root never follow symlinks out of it", async () => {
  const { parent, root } = layout();
  const before = treeHash(parent, []);
  const g = await rt(["grep", "TOPSECRET"], { cwd: root });
  assert.equal(g.code, 1, "nothing matched");
  assert.doesNotMatch(g.stdout + g.stderr, new RegExp(SECRET));
  assert.match(g.stderr, /no matches/);
  const f = await rt(["find", "secret"], { cwd: root });
  assert.equal(f.code, 0);
  assert.doesNotMatch(f.stdout, /outside|x-evil/);
  const l = await rt(["grep", "TOPSECRET", "-l"], { cwd: root });
  assert.doesNotMatch(l.stdout, /secret\.txt/);
  assert.equal(treeHash(parent, []), before);
});

test("symlinks that stay inside the root are followed", async () => {
  const root = tempTree({ "src/real.txt": "real content\n" });
  fs.symlinkSync("src/real.txt", path.join(root, "alias.txt"));
  fs.symlinkSync("src", path.join(root, "srcdir"));
  const r = await rt(["open", "alias.txt"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^--- src\/real\.txt \(lines 1-1 of 1\) ---\n1: real content\n$/);
  const r2 = await rt(["read", "srcdir/real.txt"], { cwd: root });
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(r2.stdout, "   1: real content\n");
});
