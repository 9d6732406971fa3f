// Root selection: --root DIR, else RT_ROOT, else the enclosing git repository's
// top level (a real `git init`), else the current directory. Paths are resolved
// against the root, and the state directory lives at the root.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace, findGitTop, splitLines } from "../../src/workspace/workspace.ts";
import { git, rt, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

function trees() {
  const repo = tempTree({ "top.txt": "repo top\n", "pkg/sub/deep.txt": "deep in repo\n" });
  git(repo, "init", "-q");
  const other = tempTree({ "top.txt": "other dir\n" });
  const plain = tempTree({ "top.txt": "plain dir\n", "inner/x.txt": "x\n" });
  return { repo, other, plain };
}

test("library: explicit root beats RT_ROOT, which beats git, which beats cwd", () => {
  const { repo, other, plain } = trees();
  const cwd = path.join(repo, "pkg", "sub");
  assert.equal(createWorkspace({ root: plain, cwd, env: { RT_ROOT: other } }).root, plain);
  assert.equal(createWorkspace({ cwd, env: { RT_ROOT: other } }).root, other);
  assert.equal(createWorkspace({ cwd, env: {} }).root, repo);
  assert.equal(createWorkspace({ cwd: path.join(plain, "inner"), env: {} }).root, path.join(plain, "inner"));
  // An empty RT_ROOT counts as unset.
  assert.equal(createWorkspace({ cwd, env: { RT_ROOT: "" } }).root, repo);
  // A relative root is taken relative to cwd; the root is always a real path.
  assert.equal(createWorkspace({ root: "..", cwd: path.join(plain, "inner"), env: {} }).root, plain);
  const link = path.join(tempTree(), "link");
  fs.symlinkSync(plain, link);
  assert.equal(createWorkspace({ root: link, env: {} }).root, plain);
});

test("library: a root that does not exist or is a file is an error", () => {
  const { plain } = trees();
  assert.throws(
    () => createWorkspace({ root: path.join(plain, "nope"), env: {} }),
    /workspace root .*nope does not exist/,
  );
  assert.throws(() => createWorkspace({ root: path.join(plain, "top.txt"), env: {} }), /is not a directory/);
});

test("findGitTop walks up to the directory holding .git", () => {
  const { repo, plain } = trees();
  assert.equal(findGitTop(path.join(repo, "pkg", "sub")), repo);
  assert.equal(findGitTop(repo), repo);
  assert.equal(findGitTop(plain), undefined);
  // A worktree's .git is a file; it marks the top level too.
  const wt = tempTree({ ".git": "gitdir: /somewhere/else\n", "a/b.txt": "b\n" });
  assert.equal(findGitTop(path.join(wt, "a")), wt);
});

test("CLI: --root wins over RT_ROOT and git; RT_ROOT wins over git", async () => {
  const { repo, other, plain } = trees();
  const cwd = path.join(repo, "pkg", "sub");
  const a = await rt(["--root", plain, "open", "top.txt"], { cwd, env: { RT_ROOT: other } });
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stdout, /1: plain dir/);
  // --root also works after the command, and as --root=DIR.
  const b = await rtMain(["open", "top.txt", "--root", plain], { cwd });
  assert.match(b.stdout, /1: plain dir/);
  const b2 = await rtMain([`--root=${plain}`, "read", "top.txt"], { cwd });
  assert.equal(b2.stdout, "   1: plain dir\n");
  const c = await rtMain(["open", "top.txt"], { cwd, env: { RT_ROOT: other } });
  assert.match(c.stdout, /1: other dir/);
  const d = await rtMain(["open", "../../top.txt"], { cwd });
  assert.match(d.stdout, /1: repo top/);
  const e = await rtMain(["open", "top.txt"], { cwd: plain });
  assert.match(e.stdout, /1: plain dir/);
});

test("CLI: inside a git repository, the root is its top level and state lives there; paths are relative to the current directory", async () => {
  const { repo } = trees();
  const cwd = path.join(repo, "pkg", "sub");
  const r = await rtMain(["open", "deep.txt"], { cwd });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^--- deep\.txt \(lines 1-1 of 1\) ---\n1: deep in repo\n$/);
  assert.ok(fs.existsSync(path.join(repo, ".rt", "view.json")), "state at the repository's top level");
  assert.equal(fs.existsSync(path.join(cwd, ".rt")), false, "no state in the current directory");
  // A root-relative path from a subdirectory is not what rt resolves (as with any Unix tool).
  const miss = await rtMain(["open", "pkg/sub/deep.txt"], { cwd });
  assert.equal(miss.code, 1);
  assert.match(miss.stderr, /pkg\/sub\/deep\.txt: file not found/);
  // find and grep search the current directory and show paths relative to it.
  const f = await rtMain(["find", "deep"], { cwd });
  assert.equal(f.stdout, "deep.txt\n");
  const g = await rtMain(["grep", "deep in"], { cwd });
  assert.equal(g.stdout, "deep.txt:1: deep in repo\n");
  const up = await rtMain(["grep", "repo top", "../.."], { cwd });
  assert.equal(up.stdout, "../../top.txt:1: repo top\n");
});

test("CLI: a bad root is a usage error (exit 2) with a one-line message", async () => {
  const { plain } = trees();
  const r = await rtMain(["--root", path.join(plain, "missing"), "open", "top.txt"], { cwd: plain });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^rt: workspace root .*missing does not exist\n$/);
  const r2 = await rtMain(["open", "top.txt"], { cwd: plain, env: { RT_ROOT: path.join(plain, "top.txt") } });
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /is not a directory/);
});

test("splitLines: endings removed, a final newline starts no line, CRLF handled", () => {
  assert.deepEqual(splitLines(""), []);
  assert.deepEqual(splitLines("\n"), [""]);
  assert.deepEqual(splitLines("a"), ["a"]);
  assert.deepEqual(splitLines("a\n"), ["a"]);
  assert.deepEqual(splitLines("a\r\nb\r\n"), ["a", "b"]);
  assert.deepEqual(splitLines("a\n\nb"), ["a", "", "b"]);
  assert.deepEqual(splitLines("a\r\n\r\n"), ["a", ""]);
  assert.deepEqual(splitLines("a\rb\n"), ["a\rb"]);
});
