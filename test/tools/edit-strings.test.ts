import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rtCall, tempTree, treeHash } from "../helpers.ts";

const PY = 'def greet(name):\n    msg = "hello " + name\n    return msg\n\n\ndef other():\n    return 1\n';

test("edit: exact unique match is replaced; the result names the tier", async () => {
  const dir = tempTree({ "g.py": PY });
  const r = await rtCall(
    "edit",
    { path: "g.py", old_string: "    return msg", new_string: "    return msg.upper()" },
    { cwd: dir },
  );
  assert.equal(r.code, 0, r.result.error);
  assert.equal(r.result.tier, "exact");
  assert.match(r.result.output, /^✓ Edited g\.py:3-3/);
  assert.equal(fs.readFileSync(path.join(dir, "g.py"), "utf8"), PY.replace("return msg\n", "return msg.upper()\n"));
});

test("edit: indentation drift is tolerated and new_string is shifted the same way", async () => {
  const dir = tempTree({ "g.py": PY });
  const r = await rtCall(
    "edit",
    { path: "g.py", old_string: 'msg = "hello " + name\nreturn msg', new_string: 'msg = "hi " + name\nreturn msg' },
    { cwd: dir },
  );
  assert.equal(r.code, 0, r.result.error);
  assert.notEqual(r.result.tier, "exact");
  assert.equal(fs.readFileSync(path.join(dir, "g.py"), "utf8"), PY.replace('"hello "', '"hi "'));
});

test("edit: curly quotes in old_string are folded; the file's own quotes are matched", async () => {
  const dir = tempTree({ "g.py": PY });
  const r = await rtCall(
    "edit",
    { path: "g.py", old_string: "msg = “hello ” + name", new_string: 'msg = "hey " + name' },
    { cwd: dir },
  );
  assert.equal(r.code, 0, r.result.error);
  assert.equal(r.result.tier, "unicode-folded");
  assert.match(fs.readFileSync(path.join(dir, "g.py"), "utf8"), /msg = "hey " \+ name/);
});

test("edit: several matches is an error listing every line; nothing written", async () => {
  const dir = tempTree({ "g.py": PY + "\ndef third():\n    return 1\n" });
  const before = treeHash(dir);
  const r = await rtCall(
    "edit",
    { path: "g.py", old_string: "    return 1", new_string: "    return 2" },
    { cwd: dir },
  );
  assert.equal(r.code, 1);
  assert.match(r.result.error, /7/);
  assert.match(r.result.error, /10/);
  assert.deepEqual(r.result.lines, [7, 10]);
  assert.equal(treeHash(dir), before);
  const all = await rtCall(
    "edit",
    { path: "g.py", old_string: "    return 1", new_string: "    return 2", replace_all: true },
    { cwd: dir },
  );
  assert.equal(all.code, 0, all.result.error);
  assert.equal((fs.readFileSync(path.join(dir, "g.py"), "utf8").match(/return 2/g) ?? []).length, 2);
});

test("edit: hallucinated old text fails with the closest region and advice to re-read", async () => {
  const dir = tempTree({ "g.py": PY });
  const before = treeHash(dir);
  const r = await rtCall(
    "edit",
    { path: "g.py", old_string: "def greet(person, greeting):\n    return greeting + person", new_string: "x" },
    { cwd: dir },
  );
  assert.equal(r.code, 1);
  assert.match(r.result.error, /re-read/i);
  assert.equal(r.result.reason, "not-found");
  assert.equal(treeHash(dir), before);
});

test("edit: new_string already present where old_string was expected is reported", async () => {
  const dir = tempTree({ "g.py": PY });
  const r = await rtCall(
    "edit",
    { path: "g.py", old_string: "    return msg.lower()", new_string: "    return msg" },
    { cwd: dir },
  );
  assert.equal(r.code, 1);
  assert.equal(r.result.reason, "already-applied");
});

test("edit: a syntax error introduced by the edit is rejected (file unchanged); --force writes it", async () => {
  const dir = tempTree({ "g.py": PY, "c.json": '{"a": 1, "b": [1, 2]}\n' });
  const before = treeHash(dir);
  const r = await rtCall("edit", { path: "g.py", old_string: "def other():", new_string: "def other(:" }, { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.result.error, /syntax error/);
  assert.match(r.result.error, /6:\d+|line 6/);
  const j = await rtCall("edit", { path: "c.json", old_string: '"b": [1, 2]', new_string: '"b": [1, 2' }, { cwd: dir });
  assert.equal(j.code, 1);
  assert.equal(treeHash(dir), before);
  const f = await rtCall(
    "edit",
    { path: "g.py", old_string: "def other():", new_string: "def other(:", force: true },
    { cwd: dir },
  );
  assert.equal(f.code, 0, f.result.error);
});

test("multi_edit: applied in order and written once; a failing edit writes nothing and is named", async () => {
  const dir = tempTree({ "g.py": PY });
  const ok = await rtCall(
    "multi_edit",
    {
      path: "g.py",
      edits: [
        { old_string: "def greet(name):", new_string: "def greet(who):" },
        { old_string: "+ name", new_string: "+ who" },
      ],
    },
    { cwd: dir },
  );
  assert.equal(ok.code, 0, ok.result.error);
  assert.match(fs.readFileSync(path.join(dir, "g.py"), "utf8"), /def greet\(who\):\n    msg = "hello " \+ who/);
  const before = treeHash(dir);
  const bad = await rtCall(
    "multi_edit",
    {
      path: "g.py",
      edits: [
        { old_string: "def other():", new_string: "def other2():" },
        { old_string: "no such text anywhere", new_string: "x" },
      ],
    },
    { cwd: dir },
  );
  assert.equal(bad.code, 1);
  assert.match(bad.result.error, /edits\[1\]/);
  assert.equal(treeHash(dir), before);
});

test("edit on CRLF file keeps CRLF endings", async () => {
  const dir = tempTree({ "w.txt": "alpha\r\nbeta\r\ngamma\r\n" });
  const r = await rtCall("edit", { path: "w.txt", old_string: "beta\ngamma", new_string: "BETA\ngamma" }, { cwd: dir });
  assert.equal(r.code, 0, r.result.error);
  assert.deepEqual(fs.readFileSync(path.join(dir, "w.txt")), Buffer.from("alpha\r\nBETA\r\ngamma\r\n"));
});
