import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { rt, rtBatch, rtCall, tempTree, treeHash } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

const PY = "def f(x):\n    if x:\n        return 1\n    return 2\n\nprint(f(1))\n";

test("rt edit replaces a range, re-indents, prints ✓ and the numbered region", async () => {
  const dir = tempTree({ "a.py": PY });
  const r = await rt(["edit", "a.py", "3", "3"], { cwd: dir, input: "return 42\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^✓ Edited a\.py:3-3\n/);
  assert.match(r.stdout, /   3:         return 42/);
  assert.equal(fs.readFileSync(path.join(dir, "a.py"), "utf8"), PY.replace("return 1", "return 42"));
});

test("rt insert before a line, N+1 appends; rt delete removes a range", async () => {
  const dir = tempTree({ "a.txt": "one\ntwo\n" });
  assert.equal((await rtMain(["insert", "a.txt", "1"], { cwd: dir, input: "zero\n" })).code, 0);
  assert.equal((await rtMain(["insert", "a.txt", "4"], { cwd: dir, input: "three\n" })).code, 0);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "zero\none\ntwo\nthree\n");
  const d = await rtMain(["delete", "a.txt", "2", "3"], { cwd: dir });
  assert.equal(d.code, 0, d.stderr);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "zero\nthree\n");
});

test("out-of-range and reversed ranges are errors that state the line count and change nothing", async () => {
  const dir = tempTree({ "a.txt": "one\ntwo\n" });
  const before = treeHash(dir);
  const r1 = await rtMain(["edit", "a.txt", "2", "9"], { cwd: dir, input: "x\n" });
  assert.equal(r1.code, 1);
  assert.match(r1.stderr, /the file has 2 lines/);
  const r2 = await rtMain(["edit", "a.txt", "2", "1"], { cwd: dir, input: "x\n" });
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /reversed.*the file has 2 lines/);
  const r3 = await rtMain(["insert", "a.txt", "4"], { cwd: dir, input: "x\n" });
  assert.equal(r3.code, 1);
  assert.match(r3.stderr, /valid lines are 1-3/);
  assert.equal(treeHash(dir), before);
});

test("--show-diff and RT_AUTO_DIFF=1 add the unified diff; --dry-run writes nothing", async () => {
  const dir = tempTree({ "a.txt": "one\ntwo\n" });
  const r = await rtMain(["edit", "a.txt", "1", "1", "--show-diff"], { cwd: dir, input: "ONE\n" });
  assert.match(r.stdout, /--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1,2 \+1,2 @@\n-one\n\+ONE/);
  const r2 = await rtMain(["edit", "a.txt", "2", "2"], { cwd: dir, input: "TWO\n", env: { RT_AUTO_DIFF: "1" } });
  assert.match(r2.stdout, /-two\n\+TWO/);
  const before = treeHash(dir);
  const r3 = await rtMain(["edit", "a.txt", "2", "2", "--dry-run"], { cwd: dir, input: "2\n" });
  assert.equal(r3.code, 0);
  assert.match(r3.stdout, /Dry run.*\n[\s\S]*-TWO\n\+2/);
  assert.equal(treeHash(dir), before);
});

test("edit_lines by ID follows a moved line and says it was relocated; a gone ID shows current lines with IDs", async () => {
  const dir = tempTree({ "a.py": PY });
  const read = await rtCall("read", { path: "a.py", ids: true }, { cwd: dir });
  const ids = read.result.line_ids as string[];
  await rtMain(["insert", "a.py", "1"], { cwd: dir, input: "import os\n" });
  const r = await rtCall(
    "edit_lines",
    { path: "a.py", changes: [{ line_id: `4:${ids[3]}`, new_content: "    return 3" }] },
    { cwd: dir },
  );
  assert.equal(r.result.success, true, r.result.error);
  assert.match(r.result.output, /relocated to line 5/);
  assert.deepEqual(r.result.relocated, [{ ref: `4:${ids[3]}`, from: 4, to: 5 }]);
  assert.match(
    fs.readFileSync(path.join(dir, "a.py"), "utf8"),
    /^import os\ndef f\(x\):\n    if x:\n        return 1\n    return 3\n/,
  );
  const gone = await rtCall(
    "edit_lines",
    { path: "a.py", changes: [{ line_id: `5:${ids[3]}`, new_content: "x" }] },
    { cwd: dir },
  );
  assert.equal(gone.code, 1);
  assert.match(gone.result.error, /no longer in the file/);
  assert.match(gone.result.error, /   5: \[LID:[a-z][0-9a-z]{3,5}\]     return 3/);
});

test("all changes of one call are applied together or not at all", async () => {
  const dir = tempTree({ "a.txt": "a\nb\nc\nd\n" });
  const read = await rtCall("read", { path: "a.txt", ids: true }, { cwd: dir });
  const ids = read.result.line_ids as string[];
  const before = treeHash(dir);
  const bad = await rtCall(
    "edit_lines",
    {
      path: "a.txt",
      changes: [
        { line_id: ids[0], new_content: "A" },
        { line_id: "zzzz", new_content: "?" },
      ],
    },
    { cwd: dir },
  );
  assert.equal(bad.code, 1);
  assert.equal(treeHash(dir), before);
  const overlap = await rtCall(
    "edit_lines",
    {
      path: "a.txt",
      changes: [
        { start_line_id: ids[0], end_line_id: ids[2], new_content: "X" },
        { line_id: ids[1], new_content: "Y" },
      ],
    },
    { cwd: dir },
  );
  assert.match(overlap.result.error, /overlap/);
  assert.equal(treeHash(dir), before);
  const good = await rtCall(
    "edit_lines",
    {
      path: "a.txt",
      changes: [
        { line_id: ids[3], new_content: "D" },
        { line_id: ids[0], new_content: "A" },
        { after_line_id: ids[1], new_content: "b2" },
        { line_id: ids[2], delete: true },
      ],
    },
    { cwd: dir },
  );
  assert.equal(good.result.success, true, good.result.error);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "A\nb\nb2\nD\n");
});

test("seed 001 shape: insert_line inserts after, 0 = beginning; delete", async () => {
  const dir = tempTree({ "a.txt": "a\nb\n" });
  const b = await rtBatch(
    [
      { tool: "edit_lines", args: { path: "a.txt", command: "insert", insert_line: 0, new_content: "top" } },
      { tool: "edit_lines", args: { path: "a.txt", command: "insert", insert_line: 2, new_content: "mid" } },
      { tool: "edit_lines", args: { path: "a.txt", command: "delete", start_line: 4, end_line: 4 } },
    ],
    { cwd: dir },
  );
  assert.deepEqual(
    b.results.map((r) => r.success),
    [true, true, true],
    b.stderr,
  );
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "top\na\nmid\n");
});

test("line IDs of untouched lines survive rt's own edits; edited lines get fresh IDs", async () => {
  const dir = tempTree({ "a.txt": "a\nb\nc\n" });
  const ids1 = (await rtCall("read", { path: "a.txt", ids: true }, { cwd: dir })).result.line_ids as string[];
  await rtMain(["edit", "a.txt", "2", "2"], { cwd: dir, input: "B\n" });
  const ids2 = (await rtCall("read", { path: "a.txt", ids: true }, { cwd: dir })).result.line_ids as string[];
  assert.equal(ids2[0], ids1[0]);
  assert.equal(ids2[2], ids1[2]);
  assert.ok(!ids1.includes(ids2[1]));
});

test("CRLF, BOM, no final newline and invalid UTF-8 on untouched lines survive an edit byte for byte", async () => {
  const original = Buffer.concat([Buffer.from("\ufeffa\r\nb\nc"), Buffer.from([0xff, 0xfe]), Buffer.from("\r\nlast")]);
  const dir = tempTree({ "f.txt": original });
  const r = await rtMain(["edit", "f.txt", "2", "2"], { cwd: dir, input: "B\n" });
  assert.equal(r.code, 0, r.stderr);
  const expected = Buffer.concat([
    Buffer.from("\ufeffa\r\nB\r\nc"),
    Buffer.from([0xff, 0xfe]),
    Buffer.from("\r\nlast"),
  ]);
  assert.deepEqual(fs.readFileSync(path.join(dir, "f.txt")), expected);
});

test("file mode is kept", async () => {
  const dir = tempTree({ "run.sh": "#!/bin/sh\necho hi\n" });
  fs.chmodSync(path.join(dir, "run.sh"), 0o755);
  await rtMain(["edit", "run.sh", "2", "2"], { cwd: dir, input: "echo bye\n" });
  assert.equal(fs.statSync(path.join(dir, "run.sh")).mode & 0o777, 0o755);
});

test("undo restores the previous content, walks back, and refuses after an outside change", async () => {
  const dir = tempTree({ "a.txt": "one\n" });
  await rtMain(["edit", "a.txt", "1", "1"], { cwd: dir, input: "two\n" });
  await rtMain(["edit", "a.txt", "1", "1"], { cwd: dir, input: "three\n" });
  const u1 = await rtMain(["undo", "a.txt"], { cwd: dir });
  assert.equal(u1.code, 0, u1.stderr);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "two\n");
  fs.writeFileSync(path.join(dir, "a.txt"), "changed by hand\n");
  const u2 = await rtMain(["undo", "a.txt"], { cwd: dir });
  assert.equal(u2.code, 1);
  assert.match(u2.stderr, /changed after rt's last edit/);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "changed by hand\n");
});

test("undo keeps at least the last 20 edits", async () => {
  // 22 edits and 19 undos (each followed by a read of the file) in one `rt call --batch` process, and the
  // 20th undo through the CLI in a fresh process: the journal outlives the process that wrote it.
  const dir = tempTree({ "n.txt": "0\n" });
  const edits = Array.from({ length: 22 }, (_, k) => ({
    tool: "edit_range",
    args: { path: "n.txt", start_line: 1, end_line: 1, new_text: `${k + 1}\n` },
  }));
  const undos = Array.from({ length: 19 }, () => [
    { tool: "undo_edit", args: { path: "n.txt" } },
    { tool: "read", args: { path: "n.txt" } },
  ]).flat();
  const b = await rtBatch([...edits, ...undos], { cwd: dir });
  assert.equal(b.code, 0, b.stderr);
  assert.equal(b.results.length, 22 + 38);
  for (const [k, r] of b.results.slice(0, 22).entries()) assert.equal(r.success, true, `edit ${k + 1}: ${r.error}`);
  for (let k = 0; k < 19; k++) {
    const [undo, read] = b.results.slice(22 + 2 * k, 24 + 2 * k);
    assert.equal(undo.success, true, `undo ${k + 1}: ${undo.error}`);
    assert.equal(read.output, `   1: ${21 - k}`, `after undo ${k + 1}`);
  }
  assert.equal(fs.readFileSync(path.join(dir, "n.txt"), "utf8"), "3\n");
  const last = await rtMain(["undo", "n.txt"], { cwd: dir });
  assert.equal(last.code, 0, last.stderr);
  assert.equal(fs.readFileSync(path.join(dir, "n.txt"), "utf8"), "2\n");
});

test("write creates parents, overwrites, clears line IDs; undo of a creation deletes the file", async () => {
  const dir = tempTree({ "x.txt": "a\nb\n" });
  // The writes and reads in one `rt call --batch` process; the undo through the CLI.
  const b = await rtBatch(
    [
      { tool: "read", args: { path: "x.txt", ids: true } },
      { tool: "write", args: { path: "x.txt", content: "a\nb\n" } },
      { tool: "write", args: { path: "x.txt", content: "a\nb\nc\n" } },
      { tool: "read", args: { path: "x.txt", ids: true } },
      { tool: "write", args: { path: "deep/er/new.txt", content: "hi\r\n" } },
    ],
    { cwd: dir },
  );
  const [r1, w, w2, r2, c] = b.results;
  assert.equal(w.success, true, w.error);
  assert.equal(w2.success, true, w2.error);
  const ids1 = r1.line_ids as string[];
  const ids2 = r2.line_ids as string[];
  assert.equal(ids2.length, 3);
  assert.ok(!ids2.some((id) => ids1.includes(id)), "IDs after write are fresh");
  assert.equal(c.success, true, c.error);
  assert.deepEqual(fs.readFileSync(path.join(dir, "deep/er/new.txt")), Buffer.from("hi\r\n"));
  await rtMain(["undo", "deep/er/new.txt"], { cwd: dir });
  assert.equal(fs.existsSync(path.join(dir, "deep/er/new.txt")), false);
});

test("safe-read-only refuses every editing tool (naming the profile) but dry-run still shows the patch", async () => {
  const dir = tempTree({ "a.txt": "one\n" });
  const before = treeHash(dir);
  const r = await rtMain(["--profile", "safe-read-only", "edit", "a.txt", "1", "1"], { cwd: dir, input: "x\n" });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /safe-read-only/);
  const batch: Array<{ tool: string; args: unknown }> = [];
  for (const [tool, args] of [
    ["write", { path: "b.txt", content: "x" }],
    ["edit_lines", { path: "a.txt", command: "delete", start_line: 1 }],
    ["edit_file", { path: "a.txt", old: "one", new: "two" }],
    ["undo_edit", { path: "a.txt" }],
  ] as const) {
    // RT_PROFILE through rt call: every editing tool in one `rt call --batch` process.
    batch.push({ tool, args });
  }
  const refused = await rtBatch(batch, { cwd: dir, env: { RT_PROFILE: "safe-read-only" } });
  assert.equal(refused.results.length, batch.length, refused.stderr);
  for (const [i, c] of refused.results.entries()) {
    assert.equal(c.success, false, batch[i].tool);
    assert.match(c.error, /safe-read-only/);
  }
  const d = await rtMain(["--profile", "safe-read-only", "edit", "a.txt", "1", "1", "--dry-run"], {
    cwd: dir,
    input: "x\n",
  });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /-one\n\+x/);
  assert.equal(treeHash(dir), before);
});

test("RT_ENABLE_SWE=0 and RAGIX_ENABLE_SWE=0 disable the editing tools with a clear message", async () => {
  const dir = tempTree({ "a.txt": "one\n" });
  for (const env of [{ RT_ENABLE_SWE: "0" }, { RAGIX_ENABLE_SWE: "0" }]) {
    const r = await rtMain(["edit", "a.txt", "1", "1"], { cwd: dir, input: "x\n", env });
    assert.equal(r.code, 1);
    // The message names the variable that was set.
    assert.match(r.stderr, new RegExp(`is disabled: ${Object.keys(env)[0]}=0 turns off`));
  }
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "one\n");
  const read = await rtMain(["read", "a.txt"], { cwd: dir, env: { RT_ENABLE_SWE: "0" } });
  assert.equal(read.code, 0);
});

test("RT_ENABLE_SWE=0 disables every SWE tool in every face: rt open/grep/find, rt call, rt tools", async () => {
  const dir = tempTree({ "a.txt": "one\n" });
  // Every SWE command of the CLI under RT_ENABLE_SWE=0; the alias RAGIX_ENABLE_SWE=off (the same switch,
  // read once) through one of them. rt call and rt tools under both.
  for (const [env, commands] of [
    [
      { RT_ENABLE_SWE: "0" },
      [
        ["open", "a.txt"],
        ["grep", "one"],
        ["find", "a"],
        ["scroll", "a.txt", "+"],
        ["grep-file", "one", "a.txt"],
      ],
    ],
    [{ RAGIX_ENABLE_SWE: "off" }, [["grep-file", "one", "a.txt"]]],
  ] as const) {
    const name = Object.keys(env)[0];
    for (const args of commands) {
      const r = await rtMain([...args], { cwd: dir, env });
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.stdout}`);
      const tool = args[0] === "grep-file" ? "grep_file" : args[0];
      assert.match(r.stderr, new RegExp(`${tool} is disabled: ${name}=\\w+ turns off rt's SWE tools`), args.join(" "));
      assert.equal(r.stdout, "");
    }
    // rt call: a SWE tool is refused; the other tools still work.
    const b = await rtBatch(
      [
        { tool: "search_dir", args: { pattern: "one" } },
        { tool: "read", args: { path: "a.txt" } },
        { tool: "ls", args: {} },
      ],
      { cwd: dir, env },
    );
    assert.equal(b.results[0].success, false);
    assert.match(b.results[0].error, new RegExp(`grep is disabled: ${name}`));
    assert.equal(b.results[1].success, true, b.results[1].error);
    assert.equal(b.results[2].success, true, b.results[2].error);
    const listed = JSON.parse((await rtMain(["tools", "--json"], { cwd: dir, env })).stdout).map(
      (t: { name: string }) => t.name,
    );
    for (const n of [
      "open",
      "scroll",
      "find",
      "grep",
      "grep-file",
      "edit_lines",
      "edit_range",
      "insert_at",
      "edit_file",
      "edit",
      "multi_edit",
      "write",
      "undo_edit",
    ])
      assert.ok(!listed.includes(n), n);
    for (const n of ["read", "ls", "bash", "sql_query"]) assert.ok(listed.includes(n), n);
  }
  // The other tools still work on the command line; RT_ENABLE_SWE=1 (or unset): normal.
  assert.equal((await rtMain(["ls"], { cwd: dir, env: { RT_ENABLE_SWE: "0" } })).code, 0);
  assert.equal((await rtMain(["grep", "one"], { cwd: dir, env: { RT_ENABLE_SWE: "1" } })).code, 0);
});

test("edit_file replaces the first exact occurrence", async () => {
  const dir = tempTree({ "a.txt": "x = 1\nx = 1\n" });
  const r = await rtCall("edit_file", { path: "a.txt", old: "x = 1", new: "x = 2" }, { cwd: dir });
  assert.equal(r.code, 0, r.result.error);
  assert.equal(fs.readFileSync(path.join(dir, "a.txt"), "utf8"), "x = 2\nx = 1\n");
  const miss = await rtCall("edit_file", { path: "a.txt", old: "nope", new: "x" }, { cwd: dir });
  assert.equal(miss.code, 1);
  assert.match(miss.result.error, /not found/);
});

test("edits through paths that escape the root are refused and create nothing", async () => {
  const dir = tempTree({ "a.txt": "one\n" });
  const r = await rtCall("write", { path: "../escape.txt", content: "x" }, { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.result.error, /outside the workspace root/);
  assert.equal(fs.existsSync(path.join(path.dirname(dir), "escape.txt")), false);
});

test("a plain line number that went stale since the caller viewed the file is refused; fresh numbers, IDs and N:ID work", async () => {
  const dir = tempTree({ "s.txt": "a\nb\nc\nd\ne\nf\ng\nh\n" });
  const file = path.join(dir, "s.txt");
  const read = await rtCall("read", { path: "s.txt", ids: true }, { cwd: dir });
  const ids = read.result.line_ids as string[];
  // The caller's own edit inserts two lines at the top...
  assert.equal((await rtMain(["insert", "s.txt", "1"], { cwd: dir, input: "new1\nnew2\n" })).code, 0);
  // ...then it edits line 7 ("g" when it read the file) by its old number: now line 7 holds "e".
  const before = fs.readFileSync(file, "utf8");
  const stale = await rtMain(["edit", "s.txt", "7", "7"], { cwd: dir, input: "G\n" });
  assert.equal(stale.code, 1);
  assert.match(stale.stderr, /line 7 is ambiguous/);
  assert.match(stale.stderr, new RegExp(`The line you saw there is now 9:${ids[6]} \\("g"\\)`));
  assert.match(stale.stderr, /Line 7 is now 7:[a-z][0-9a-z]{3,5} \("e"\)/);
  assert.equal(fs.readFileSync(file, "utf8"), before);
  // Lines above the change, and lines the edit's output showed, are current.
  assert.equal((await rtMain(["edit", "s.txt", "1", "1"], { cwd: dir, input: "NEW1\n" })).code, 0);
  // N:ID follows the line; so does re-reading.
  const byId = await rtCall(
    "edit_lines",
    { path: "s.txt", changes: [{ line_id: `7:${ids[6]}`, new_content: "G" }] },
    { cwd: dir },
  );
  assert.equal(byId.code, 0, byId.result.error);
  await rtMain(["open", "s.txt"], { cwd: dir });
  assert.equal((await rtMain(["edit", "s.txt", "10", "10"], { cwd: dir, input: "H\n" })).code, 0);
  assert.equal(fs.readFileSync(file, "utf8"), "NEW1\nnew2\na\nb\nc\nd\ne\nf\nG\nH\n");
});

test("a change by another program after the caller's read makes plain numbers below it stale", async () => {
  const dir = tempTree({ "t.py": "x = 1\ny = 2\nz = 3\n" });
  await rtMain(["open", "t.py"], { cwd: dir });
  fs.writeFileSync(path.join(dir, "t.py"), "# header\nx = 1\ny = 2\nz = 3\n");
  const r = await rtMain(["edit", "t.py", "3", "3"], { cwd: dir, input: "z = 30\n" });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /ambiguous/);
  // grep shows current numbers: after it, the number is trusted.
  const g = await rtMain(["grep", "z = 3", "t.py"], { cwd: dir });
  assert.match(g.stdout, /4: z = 3/);
  assert.equal((await rtMain(["edit", "t.py", "4", "4"], { cwd: dir, input: "z = 30\n" })).code, 0);
  assert.equal(fs.readFileSync(path.join(dir, "t.py"), "utf8"), "# header\nx = 1\ny = 2\nz = 30\n");
});

test("a line given as both start and end of a relocated range is reported relocated once", async () => {
  const dir = tempTree({ "a.py": PY });
  const read = await rtCall("read", { path: "a.py", ids: true }, { cwd: dir });
  const ids = read.result.line_ids as string[];
  fs.writeFileSync(path.join(dir, "a.py"), `import os\n${PY}`);
  const ref = `4:${ids[3]}`;
  const r = await rtCall(
    "edit_lines",
    { path: "a.py", command: "replace", start_line: ref, end_line: ref, new_content: "    return 3" },
    { cwd: dir },
  );
  assert.equal(r.result.success, true, r.result.error);
  assert.deepEqual(r.result.relocated, [{ ref, from: 4, to: 5 }]);
  assert.equal(r.result.output.match(/was relocated/g)?.length, 1);
});

test("a deletion names the deleted lines: ✓ Edited <path>:<start>-<end>, start_line/end_line in JSON", async () => {
  const dir = tempTree({ "d.txt": "1\n2\n3\n4\n5\n", "e.txt": "" });
  const d = await rtMain(["delete", "d.txt", "2", "3"], { cwd: dir });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stdout, /^✓ Edited d\.txt:2-3\n   1: 1\n   2: 4\n   3: 5/);
  const j = await rtCall("edit_lines", { path: "d.txt", command: "delete", start_line: 1, end_line: 1 }, { cwd: dir });
  assert.equal(j.result.start_line, 1);
  assert.equal(j.result.end_line, 1);
  assert.equal(j.result.deleted_lines, 1);
  assert.equal(fs.readFileSync(path.join(dir, "d.txt"), "utf8"), "4\n5\n");
  const empty = await rtMain(["delete", "e.txt", "1", "1"], { cwd: dir });
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /the file has 0 lines; it is empty/);
});

test("edit_lines fixes a misindented line when new_content only changes its indentation (seed 001)", async () => {
  const broken = "class A:\n    def get(self):\n        if self.ok:\n        return self.data\n        return None\n";
  const dir = tempTree({ "a.py": broken });
  const r = await rtCall(
    "edit_lines",
    { path: "a.py", command: "replace", start_line: 4, end_line: 4, new_content: "            return self.data" },
    { cwd: dir },
  );
  assert.equal(r.result.success, true, r.result.error);
  assert.equal(r.result.changed, true);
  assert.equal(
    fs.readFileSync(path.join(dir, "a.py"), "utf8"),
    broken.replace("        return self.data", "            return self.data"),
  );
});
