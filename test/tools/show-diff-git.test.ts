// --show-diff / RT_AUTO_DIFF=1 on a file git tracks shows `git diff -- FILE`
// (every change since the last `git add`), the edit's own diff otherwise; and
// the repository's configuration cannot make that git run anything: a planted
// pager, external diff, textconv, clean filter and fsmonitor hook each point
// to a script that writes a marker file, and the marker never appears.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { git, rt, tempTree } from "../helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";

function repo(files: Record<string, string>): string {
  const root = tempTree(files);
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  return root;
}

/** Plants every config key that names a program git may run for `git diff`, each writing `marker`. */
function plant(root: string, marker: string): void {
  const script = path.join(root, "evil.sh");
  fs.writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${JSON.stringify(marker)}\ncat\n`, { mode: 0o755 });
  const config = path.join(root, ".git", "config");
  fs.appendFileSync(
    config,
    [
      "[core]",
      `\tpager = ${script}`,
      `\tfsmonitor = ${script}`,
      `\thooksPath = ${root}`,
      "[diff]",
      `\texternal = ${script}`,
      "\tnoprefix = true",
      "\tcontext = 0",
      "\trelative = true",
      '[diff "evil"]',
      `\ttextconv = ${script}`,
      `\tcommand = ${script}`,
      '[filter "evil"]',
      `\tclean = ${script}`,
      `\tsmudge = ${script}`,
      `\tprocess = ${script}`,
      "\trequired = true",
      "[color]",
      "\tui = always",
      "[pager]",
      `\tdiff = ${script}`,
      "[alias]",
      `\tdiff = !${script}`,
      "",
    ].join("\n"),
  );
  fs.writeFileSync(path.join(root, ".git", "info", "attributes"), "* diff=evil filter=evil\n");
  fs.writeFileSync(path.join(root, ".gitattributes"), "* diff=evil filter=evil\n");
  // An fsmonitor hook and every other hook too.
  for (const hook of ["fsmonitor-watchman", "post-index-change", "pre-commit"])
    fs.copyFileSync(script, path.join(root, ".git", "hooks", hook));
  fs.chmodSync(path.join(root, ".git", "hooks"), 0o755);
}

const FILE = lines(40);
function lines(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
}

test("a tracked file: --show-diff prints git diff -- FILE, which includes changes made before rt's edit", async () => {
  const root = repo({ "src/a.txt": FILE, "b.txt": "b\n" });
  // A change made by hand (not staged): git diff shows it along with rt's edit.
  fs.writeFileSync(path.join(root, "src/a.txt"), FILE.replace("line 30\n", "line thirty\n"));
  const r = await rt(["edit", "src/a.txt", "5", "5", "--show-diff"], { cwd: root, input: "line five\n" });
  assert.equal(r.code, 0, r.stderr);
  const expected = execFileSync("git", ["-C", root, "diff", "--", "src/a.txt"], { encoding: "utf8" }).trimEnd();
  assert.ok(r.stdout.trimEnd().endsWith(expected), `stdout:\n${r.stdout}\nexpected git diff:\n${expected}`);
  assert.match(r.stdout, /^diff --git a\/src\/a\.txt b\/src\/a\.txt$/m);
  assert.match(r.stdout, /^-line 30$/m, "the earlier change is in git's diff");
  // RT_AUTO_DIFF=1 too, and through the JSON face the git diff is a field of its own.
  const auto = await rt(["edit", "src/a.txt", "6", "6"], {
    cwd: root,
    input: "line six\n",
    env: { RT_AUTO_DIFF: "1" },
  });
  assert.match(auto.stdout, /^diff --git a\/src\/a\.txt b\/src\/a\.txt$/m);
  const ws = createWorkspace({ root, env: {} });
  const j = await callTool(ws, "edit_lines", {
    path: "src/a.txt",
    command: "replace",
    start_line: 7,
    new_content: "line seven",
    show_diff: true,
  });
  assert.equal(j.success, true, j.error);
  assert.equal(j.git_diff, execFileSync("git", ["-C", root, "diff", "--", "src/a.txt"], { encoding: "utf8" }));
  assert.match(String(j.diff), /^--- a\/src\/a\.txt/, "diff stays the edit's own");
});

test("an untracked file, or no repository: the edit's own diff", async () => {
  const root = repo({ "a.txt": FILE });
  fs.writeFileSync(path.join(root, "new.txt"), "one\ntwo\n");
  const r = await rt(["edit", "new.txt", "2", "2", "--show-diff"], { cwd: root, input: "TWO\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /^diff --git/m);
  assert.match(r.stdout, /^--- a\/new\.txt\n\+\+\+ b\/new\.txt\n@@ -1,2 \+1,2 @@\n one\n-two\n\+TWO$/m);
  const plain = tempTree({ "a.txt": "one\n" });
  const p = await rt(["edit", "a.txt", "1", "1", "--show-diff"], { cwd: plain, input: "ONE\n" });
  assert.equal(p.code, 0, p.stderr);
  assert.match(p.stdout, /^-one\n\+ONE$/m);
});

test("a planted .git/config (pager, external diff, textconv, clean filter, fsmonitor, hooks) runs nothing, and the diff still shows", async () => {
  const root = repo({ "a.txt": FILE, "w s.txt": FILE, "star*.txt": FILE });
  const marker = path.join(tempTree({}), "marker");
  plant(root, marker);
  // The same configuration makes a plain `git diff` run the planted script (the test plants real attacks).
  fs.appendFileSync(path.join(root, "a.txt"), "changed\n");
  spawnSync("git", ["-C", root, "diff", "--", "a.txt"], { env: { ...process.env, GIT_PAGER: "" }, stdio: "ignore" });
  assert.ok(fs.existsSync(marker), "the planted configuration is live for a plain git diff");
  fs.rmSync(marker);
  fs.writeFileSync(path.join(root, "a.txt"), FILE);
  fs.rmSync(marker, { force: true });

  for (const file of ["a.txt", "w s.txt", "star*.txt"]) {
    const r = await rt(["edit", file, "3", "3", "--show-diff"], {
      cwd: root,
      input: "line three\n",
      env: { RT_AUTO_DIFF: "1", PAGER: path.join(root, "evil.sh"), GIT_EXTERNAL_DIFF: path.join(root, "evil.sh") },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`diff --git a/${file} b/${file}`), r.stdout);
    assert.match(r.stdout, /^@@ -1,6 \+1,6 @@$/m, "3 lines of context despite diff.context = 0");
    assert.match(r.stdout, /^-line 3\n\+line three$/m);
    assert.doesNotMatch(r.stdout, /\x1b\[/, "no colour despite color.ui = always");
  }
  const ws = createWorkspace({ root, env: {} });
  const j = await callTool(ws, "edit", {
    path: "a.txt",
    old_string: "line 9\n",
    new_string: "line nine\n",
    show_diff: true,
  });
  assert.equal(j.success, true, j.error);
  assert.match(String(j.git_diff), /^-line 9\n\+line nine$/m);
  assert.equal(
    fs.existsSync(marker),
    false,
    `the planted script ran: ${fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : ""}`,
  );
});

test("a git planted in the workspace or on its PATH is never the one run", async () => {
  const root = repo({ "a.txt": FILE });
  const marker = path.join(tempTree({}), "marker");
  fs.mkdirSync(path.join(root, "bin"));
  fs.writeFileSync(path.join(root, "bin", "git"), `#!/bin/sh\necho planted >> ${JSON.stringify(marker)}\n`, {
    mode: 0o755,
  });
  const r = await rt(["edit", "a.txt", "2", "2", "--show-diff"], {
    cwd: root,
    input: "line two\n",
    env: { PATH: `${path.join(root, "bin")}:${process.env.PATH}` },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^diff --git a\/a\.txt b\/a\.txt$/m);
  assert.equal(fs.existsSync(marker), false);
});
