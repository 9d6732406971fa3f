// Programs rt runs as its own machinery never come from the workspace (issue 9):
// besides bubblewrap (test/shell/bwrap-lookup.test.ts), the python3 the edit
// check asks for a second opinion on Python syntax. A repository commits an
// executable `tools/python3` that records it ran; rt is started with that
// directory (absolute, relative, and through a symlink from outside) first on
// its PATH, and edits a Python file: the planted program never runs, and the
// edit is still checked by the system's python3 (an error only Python reports
// is refused).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, tempTree } from "../helpers.ts";
import { findSystemProgram } from "../../src/base/systemProgram.ts";

const systemPython = findSystemProgram("python3", { purpose: "a syntax check" }).path;

function plantedRepo() {
  const outside = tempTree({}, "rt-python-marker-");
  const marker = path.join(outside, "ran");
  const root = tempTree({
    "tools/python3": `#!/bin/sh\necho planted >> '${marker}'\nexec ${systemPython ?? "/usr/bin/python3"} "$@"\n`,
    "app.py": "def f(x):\n    return x\n",
  });
  fs.chmodSync(path.join(root, "tools/python3"), 0o755);
  const linkDir = path.join(outside, "linked-bin");
  fs.symlinkSync(path.join(root, "tools"), linkDir);
  const hostilePath = [path.join(root, "tools"), "tools", linkDir, process.env.PATH].join(":");
  const ran = () => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");
  return { root, hostilePath, ran, linkDir };
}

test("findSystemProgram skips relative entries, entries inside the root (also through symlinks), and candidates that resolve inside it", () => {
  const repo = plantedRepo();
  const found = findSystemProgram("python3", {
    root: repo.root,
    searchPath: repo.hostilePath,
    purpose: "a syntax check",
  });
  assert.ok(found.path && !found.path.startsWith(repo.root), found.path ?? found.reason);
  const only = findSystemProgram("python3", {
    root: repo.root,
    searchPath: [path.join(repo.root, "tools"), "tools", repo.linkDir].join(":"),
    purpose: "a syntax check",
  });
  assert.match(only.reason ?? "", /inside the workspace/);
  const override = findSystemProgram("python3", {
    root: repo.root,
    override: { variable: "RT_PYTHON", value: path.join(repo.root, "tools/python3") },
    purpose: "a syntax check",
  });
  assert.match(override.reason ?? "", /^RT_PYTHON=.* lies inside the workspace/);
  assert.equal(repo.ran(), "");
});

test("an edit of a Python file never runs a python3 the repository planted on rt's PATH", {
  skip: systemPython ? false : "no python3 on this machine",
}, async () => {
  const repo = plantedRepo();
  const env = { PATH: repo.hostilePath, RT_PYTHON: undefined };
  // `x = a:b` parses in tree-sitter-python; only Python's own compiler refuses it.
  const bad = await rt(["edit", "app.py", "2", "2"], { cwd: repo.root, input: "    return a:b\n", env });
  assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  assert.match(bad.stdout + bad.stderr, /syntax error/);
  const good = await rt(["edit", "app.py", "2", "2"], { cwd: repo.root, input: "    return x + 1\n", env });
  assert.equal(good.code, 0, good.stdout + good.stderr);
  assert.equal(repo.ran(), "", "the planted python3 ran");
});
