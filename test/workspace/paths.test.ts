// resolveInside(): every path a tool touches goes through it. Each escape is
// refused with a message that says why; paths that stay inside resolve to a
// real, symlink-free path and a root-relative name.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { isWithin, resolveInside, toRel } from "../../src/workspace/paths.ts";
import { ToolError } from "../../src/base/errors.ts";
import { tempTree } from "../helpers.ts";

/** parent/ holding the root x/, a sibling x-evil/ (the prefix trick) and outside/. */
function layout() {
  const parent = tempTree({
    "x/file.txt": "inside\n",
    "x/sub/deep.txt": "deep\n",
    "x-evil/secret.txt": "evil\n",
    "outside/secret.txt": "secret\n",
  });
  const root = path.join(parent, "x");
  fs.symlinkSync(path.join(parent, "outside", "secret.txt"), path.join(root, "leak.txt"));
  fs.symlinkSync(path.join(parent, "outside"), path.join(root, "linkdir"));
  fs.symlinkSync(path.join(root, "missing-target"), path.join(root, "dangling"));
  fs.symlinkSync("sub/deep.txt", path.join(root, "good-link"));
  fs.symlinkSync("sub", path.join(root, "good-dir"));
  fs.symlinkSync("leak.txt", path.join(root, "chain")); // inside → inside → outside
  fs.symlinkSync("..", path.join(root, "up"));
  return { parent, root };
}

function refused(root: string, input: string, why: RegExp) {
  assert.throws(
    () => resolveInside(root, input),
    (e: unknown) => {
      assert.ok(e instanceof ToolError, `expected a ToolError for ${JSON.stringify(input)}, got ${e}`);
      assert.match((e as Error).message, why);
      return true;
    },
    `${JSON.stringify(input)} must be refused`,
  );
}

test("isWithin compares whole segments, never string prefixes", () => {
  assert.equal(isWithin("/srv/app", "/srv/app"), true);
  assert.equal(isWithin("/srv/app", "/srv/app/src/x.ts"), true);
  assert.equal(isWithin("/srv/app", "/srv/app-evil"), false);
  assert.equal(isWithin("/srv/app", "/srv/app-evil/x"), false);
  assert.equal(isWithin("/srv/app", "/srv/ap"), false);
  assert.equal(isWithin("/srv/app", "/srv"), false);
  assert.equal(isWithin("/", "/etc/passwd"), true);
  assert.equal(toRel("/srv/app", "/srv/app"), ".");
  assert.equal(toRel("/srv/app", "/srv/app/a/b.ts"), "a/b.ts");
});

test("paths inside the root resolve to real paths with root-relative names", () => {
  const { root } = layout();
  assert.deepEqual(resolveInside(root, "file.txt"), {
    abs: path.join(root, "file.txt"),
    rel: "file.txt",
    exists: true,
  });
  assert.deepEqual(resolveInside(root, "."), { abs: root, rel: ".", exists: true });
  assert.deepEqual(resolveInside(root, "./sub/../file.txt"), {
    abs: path.join(root, "file.txt"),
    rel: "file.txt",
    exists: true,
  });
  assert.deepEqual(resolveInside(root, path.join(root, "sub", "deep.txt")), {
    abs: path.join(root, "sub", "deep.txt"),
    rel: "sub/deep.txt",
    exists: true,
  });
  // Symlinks that stay inside resolve to their targets.
  assert.equal(resolveInside(root, "good-link").rel, "sub/deep.txt");
  assert.equal(resolveInside(root, "good-dir/deep.txt").rel, "sub/deep.txt");
});

test("`..` and absolute paths elsewhere are refused", () => {
  const { parent, root } = layout();
  for (const p of [
    "..",
    "../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "../x-evil/secret.txt",
    "/etc/passwd",
    path.join(parent, "outside", "secret.txt"),
    "/",
  ]) {
    refused(root, p, /outside the workspace root/);
  }
});

test("the prefix trick: /tmp/x-evil is not inside /tmp/x", () => {
  const { parent, root } = layout();
  refused(root, path.join(parent, "x-evil", "secret.txt"), /outside the workspace root/);
  refused(root, path.join(parent, "x-evil"), /outside the workspace root/);
  refused(root, "../x-evil/secret.txt", /outside the workspace root/);
  refused(root, path.join(parent, "x-evil", "new-file.txt"), /outside the workspace root/);
});

test("symlinks leading outside are refused: the file, a parent directory, a chain, a link to ..", () => {
  const { root } = layout();
  refused(root, "leak.txt", /outside the workspace root .*symbolic link/);
  refused(root, "linkdir/secret.txt", /outside the workspace root .*symbolic link/);
  refused(root, "linkdir", /outside the workspace root/);
  refused(root, "chain", /outside the workspace root/);
  refused(root, "up/x-evil/secret.txt", /outside the workspace root/);
  refused(root, "up", /outside the workspace root/);
});

test("a dangling symlink is refused, also as a parent of a new path", () => {
  const { root } = layout();
  refused(root, "dangling", /symbolic link to .*does not exist/);
  refused(root, "dangling/new.txt", /symbolic link to .*does not exist/);
});

test("NUL bytes and empty paths are refused", () => {
  const { root } = layout();
  refused(root, "file.txt\0.png", /NUL byte/);
  refused(root, "\0", /NUL byte/);
  refused(root, "", /path is empty/);
});

test("paths that do not exist yet are checked through their nearest existing parent", () => {
  const { parent, root } = layout();
  assert.deepEqual(resolveInside(root, "new/dir/file.txt"), {
    abs: path.join(root, "new", "dir", "file.txt"),
    rel: "new/dir/file.txt",
    exists: false,
  });
  assert.deepEqual(resolveInside(root, "sub/new.txt"), {
    abs: path.join(root, "sub", "new.txt"),
    rel: "sub/new.txt",
    exists: false,
  });
  // Through a symlinked directory that stays inside: the real parent is used.
  assert.equal(resolveInside(root, "good-dir/new.txt").rel, "sub/new.txt");
  // Through a symlinked directory that leads outside: refused, even several levels down.
  refused(root, "linkdir/new.txt", /outside the workspace root/);
  refused(root, "linkdir/a/b/c.txt", /outside the workspace root/);
  refused(root, "up/x-evil/new.txt", /outside the workspace root/);
  // Nothing was created by any of this.
  assert.equal(fs.existsSync(path.join(root, "new")), false);
  assert.deepEqual(fs.readdirSync(path.join(parent, "outside")), ["secret.txt"]);
});

test("a path below a regular file resolves (inside) but does not exist", () => {
  const { root } = layout();
  const r = resolveInside(root, "file.txt/below");
  assert.equal(r.exists, false);
  assert.equal(r.rel, "file.txt/below");
});
