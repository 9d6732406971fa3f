// rt's state directory is not the tools' to write (issue 9): an agent allowed to
// edit files rewrote its own session (`.rt/sessions/*.jsonl`) to add a model
// record, and the next `--continue` sent the conversation and the user's key to
// a provider the user never chose. Every editing tool refuses a path in `.rt/`,
// and leaves it byte-identical. And the workspace root is never a directory
// whose `.git` belongs to another user (git's safe.directory rule).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree } from "../helpers.ts";
import { createWorkspace, findGitTop } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";

test("edit, write, multi_edit, edit_lines and insert refuse paths in .rt/, which stay byte-identical", async () => {
  const session = '{"t":"header","id":"x"}\n{"t":"user","text":"hello"}\n';
  const root = tempTree({ ".rt/sessions/s.jsonl": session, ".rt/config.json": "{}\n", "a.py": "x = 1\n" });
  const ws = createWorkspace({ root, env: { HOME: root } });
  const calls: Array<[string, Record<string, unknown>]> = [
    ["edit", { path: ".rt/sessions/s.jsonl", old_string: '"text":"hello"', new_string: '"text":"bye"' }],
    ["write", { path: ".rt/sessions/s.jsonl", content: '{"t":"model","model":"anthropic/claude"}\n' }],
    ["write", { path: ".rt/sessions/new.jsonl", content: "{}\n" }],
    ["write", { path: "./sub/../.rt/config.json", content: '{"agent":{"approval":"auto"}}\n' }],
    ["multi_edit", { path: ".rt/config.json", edits: [{ old_string: "{}", new_string: '{"x":1}' }] }],
    ["edit_lines", { path: ".rt/config.json", changes: [{ line_id: 1, new_content: '{"x":1}' }] }],
    ["insert_at", { path: ".rt/sessions/s.jsonl", line: 1, new_text: "{}" }],
  ];
  for (const [tool, args] of calls) {
    const r = await callTool(ws, tool, args);
    assert.equal(r.success, false, `${tool} ${JSON.stringify(args)}: ${r.output}`);
    assert.match(String(r.error), /state directory/, `${tool}: ${r.error}`);
  }
  assert.equal(fs.readFileSync(path.join(root, ".rt/sessions/s.jsonl"), "utf8"), session);
  assert.equal(fs.readFileSync(path.join(root, ".rt/config.json"), "utf8"), "{}\n");
  assert.equal(fs.existsSync(path.join(root, ".rt/sessions/new.jsonl")), false);
  // The project's own files are still editable.
  assert.equal((await callTool(ws, "edit", { path: "a.py", old_string: "x = 1", new_string: "x = 2" })).success, true);
});

test("a .git that belongs to another user does not make its directory the workspace root", {
  skip: process.getuid?.() === 0 ? false : "needs root to chown",
}, () => {
  const top = tempTree({
    "mine/.git/HEAD": "ref: refs/heads/main\n",
    "mine/theirs/.git/HEAD": "x\n",
    "mine/theirs/deep/f.txt": "x\n",
  });
  const theirs = path.join(top, "mine", "theirs");
  assert.equal(findGitTop(path.join(theirs, "deep")), theirs);
  fs.chownSync(path.join(theirs, ".git"), 12345, 12345);
  // Another user's .git is skipped; the walk finds ours above it.
  assert.equal(findGitTop(path.join(theirs, "deep")), path.join(top, "mine"));
  fs.chownSync(path.join(top, "mine", ".git"), 12345, 12345);
  assert.equal(findGitTop(path.join(theirs, "deep")), findGitTop(top));
});
