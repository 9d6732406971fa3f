// open (seed 000 §4.2.1): `PATH` → lines 1-100; `PATH:LINE` → LINE-50 ..
// LINE+49 clipped at the file's ends; `PATH:START-END` → that range, at most
// 200 lines. Output: `--- <path> (lines <start>-<end> of <total>) ---`, then
// `<n>: text`. Past-the-end and reversed ranges are errors. The window is
// remembered for scroll.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { parseLocation } from "../../src/tools/open.ts";
import { lines, rt, rtBatch, tempTree } from "../helpers.ts";

/** The exact text open must print for lines start..end of a `lines(total)` file. */
function expected(file: string, start: number, end: number, total: number): string {
  const body = [];
  for (let i = start; i <= end; i++) body.push(`${i}: line ${i}`);
  return [`--- ${file} (lines ${start}-${end} of ${total}) ---`, ...body].join("\n");
}

function setup(files: Record<string, string> = {}) {
  const root = tempTree({ "f.txt": lines(300), "short.txt": lines(5), "empty.txt": "", ...files });
  const w = createWorkspace({ root, env: {} });
  return { root, w, open: (args: Record<string, unknown>) => callTool(w, "open", args) };
}

test("open PATH shows lines 1-100 with the seed 000 header", async () => {
  const { open } = setup();
  const r = await open({ path: "f.txt" });
  assert.equal(r.success, true);
  assert.equal(r.output, expected("f.txt", 1, 100, 300));
  assert.deepEqual([r.path, r.start_line, r.end_line, r.total_lines], ["f.txt", 1, 100, 300]);
});

test("open PATH:LINE centers on LINE (LINE-50 .. LINE+49), clipped at the ends", async () => {
  const { open } = setup();
  const cases: Array<[number, number, number]> = [
    [150, 100, 199],
    [51, 1, 100],
    [52, 2, 101],
    [10, 1, 59],
    [1, 1, 50],
    [251, 201, 300],
    [280, 230, 300],
    [300, 250, 300],
    [320, 270, 300], // the file is too short: show what is available
  ];
  for (const [line, s, e] of cases) {
    const r = await open({ path: `f.txt:${line}` });
    assert.equal(r.output, expected("f.txt", s, e, 300), `f.txt:${line}`);
    const viaArg = await open({ path: "f.txt", line });
    assert.equal(viaArg.output, r.output, `line: ${line}`);
  }
});

test("open PATH:START-END shows the range, capped at 200 lines", async () => {
  const { open } = setup();
  assert.equal((await open({ path: "f.txt:10-20" })).output, expected("f.txt", 10, 20, 300));
  assert.equal((await open({ path: "f.txt:7-7" })).output, expected("f.txt", 7, 7, 300));
  assert.equal((await open({ path: "f.txt:250-400" })).output, expected("f.txt", 250, 300, 300));
  assert.equal((await open({ path: "f.txt", start: 10, end: 20 })).output, expected("f.txt", 10, 20, 300));
  const capped = await open({ path: "f.txt:1-300" });
  assert.equal(
    capped.output,
    `${expected("f.txt", 1, 200, 300)}\n... (range capped at 200 lines; open f.txt:201-300 for the rest)`,
  );
  assert.equal(capped.end_line, 200);
  const capped2 = await open({ path: "f.txt:50-260" });
  assert.match(capped2.output as string, /^--- f\.txt \(lines 50-249 of 300\) ---\n/);
  assert.match(
    capped2.output as string,
    /\n249: line 249\n\.\.\. \(range capped at 200 lines; open f\.txt:250-260 for the rest\)$/,
  );
  // start alone: a 100-line window from there; end alone: from line 1.
  assert.equal((await open({ path: "f.txt", start: 290 })).output, expected("f.txt", 290, 300, 300));
  assert.equal((await open({ path: "f.txt", end: 3 })).output, expected("f.txt", 1, 3, 300));
});

test("errors: past the end, reversed ranges, line 0, line and range together", async () => {
  const { open } = setup();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ path: "f.txt:351" }, "line 351 is past the end of f.txt (300 lines); open f.txt:300 shows the end"],
    [{ path: "f.txt:5000" }, "line 5000 is past the end of f.txt (300 lines); open f.txt:300 shows the end"],
    [{ path: "f.txt:301-310" }, "line 301 is past the end of f.txt (300 lines); open f.txt:300 shows the end"],
    [
      { path: "f.txt", start: 400, end: 500 },
      "line 400 is past the end of f.txt (300 lines); open f.txt:300 shows the end",
    ],
    [{ path: "f.txt:20-10" }, "range 20-10 is reversed: the end line must be at least the start line"],
    [{ path: "f.txt", start: 9, end: 8 }, "range 9-8 is reversed: the end line must be at least the start line"],
    [{ path: "f.txt:0" }, "line 0 does not exist: line numbers start at 1 (e.g. f.txt:1)"],
    [{ path: "f.txt:0-5" }, "line 0 does not exist: line numbers start at 1 (e.g. f.txt:1)"],
    [{ path: "f.txt:12", start: 1 }, "give either a line to center on or a start-end range, not both"],
    [{ path: "missing.txt:12" }, "missing.txt: file not found"],
    [{ path: "short.txt:60" }, "line 60 is past the end of short.txt (5 lines); open short.txt:5 shows the end"],
  ];
  for (const [args, error] of cases) {
    const r = await open(args);
    assert.equal(r.success, false, JSON.stringify(args));
    assert.equal(r.error, error, JSON.stringify(args));
    assert.equal(r.error_type, "tool");
  }
  const bad = await open({ path: "f.txt", line: 0 });
  assert.equal(bad.error_type, "usage");
  assert.match(bad.error as string, /line: /);
});

test("short and empty files: just what is available", async () => {
  const { open } = setup();
  assert.equal((await open({ path: "short.txt" })).output, expected("short.txt", 1, 5, 5));
  assert.equal((await open({ path: "short.txt:3" })).output, expected("short.txt", 1, 5, 5));
  assert.equal((await open({ path: "short.txt:2-100" })).output, expected("short.txt", 2, 5, 5));
  const e = await open({ path: "empty.txt" });
  assert.equal(e.success, true);
  assert.equal(e.output, "--- empty.txt (lines 0-0 of 0) ---\n(empty file)");
});

test("a file whose name ends in :N is opened whole; a missing one is parsed as PATH:LINE", async () => {
  const { root, open } = setup({ "odd:12": lines(3), "odd2:1-2": lines(4) });
  assert.equal((await open({ path: "odd:12" })).output, expected("odd:12", 1, 3, 3));
  assert.equal((await open({ path: "odd2:1-2" })).output, expected("odd2:1-2", 1, 4, 4));
  assert.equal((await open({ path: "odd:12:2" })).output, expected("odd:12", 1, 3, 3));
  assert.deepEqual(parseLocation("src/a.ts:12", root), { path: "src/a.ts", line: 12 });
  assert.deepEqual(parseLocation("src/a.ts:3-9", root), { path: "src/a.ts", start: 3, end: 9 });
  assert.deepEqual(parseLocation("src/a.ts", root), { path: "src/a.ts" });
  assert.deepEqual(parseLocation(":12", root), { path: ":12" });
  assert.deepEqual(parseLocation("a.ts:x", root), { path: "a.ts:x" });
});

test("long lines are cut; CRLF files show no carriage returns", async () => {
  const { open } = setup({ "wide.txt": `${"w".repeat(2100)}\nok\n`, "crlf.txt": "a\r\nb\r\n" });
  assert.equal(
    (await open({ path: "wide.txt" })).output,
    `--- wide.txt (lines 1-2 of 2) ---\n1: ${"w".repeat(2000)}… [line cut: 100 more characters]\n2: ok`,
  );
  assert.equal((await open({ path: "crlf.txt" })).output, "--- crlf.txt (lines 1-2 of 2) ---\n1: a\n2: b");
});

test("open remembers the window in .rt/view.json for scroll", async () => {
  const { root, open } = setup();
  await open({ path: "f.txt:150" });
  const view = JSON.parse(fs.readFileSync(path.join(root, ".rt", "view.json"), "utf8"));
  assert.deepEqual(view.files["f.txt"], { start: 100, end: 199, chunk: 100, overlap: 2 });
});

test("CLI: rt open PATH, PATH:LINE, PATH:START-END; exit codes", async () => {
  const root = tempTree({ "src/app.py": lines(300) });
  const a = await rt(["open", "src/app.py"], { cwd: root });
  assert.equal(a.code, 0);
  assert.equal(a.stdout, `${expected("src/app.py", 1, 100, 300)}\n`);
  const b = await rt(["open", "src/app.py:120"], { cwd: root });
  assert.equal(b.stdout, `${expected("src/app.py", 70, 169, 300)}\n`);
  const c = await rt(["open", "src/app.py:5-9"], { cwd: root });
  assert.equal(c.stdout, `${expected("src/app.py", 5, 9, 300)}\n`);
  const d = await rt(["open", "src/app.py:9-5"], { cwd: root });
  assert.equal(d.code, 1);
  assert.equal(d.stderr, "rt open: range 9-5 is reversed: the end line must be at least the start line\n");
  const e = await rt(["open", "src/app.py:999"], { cwd: root });
  assert.equal(e.code, 1);
  assert.equal(
    e.stderr,
    "rt open: line 999 is past the end of src/app.py (300 lines); open src/app.py:300 shows the end\n",
  );
  const f = await rt(["open"], { cwd: root });
  assert.equal(f.code, 2);
  assert.equal(f.stderr, "rt open: missing PATH\nUsage: rt open PATH[:LINE|:START-END]\n");
  const g = await rt(["open", "a", "b"], { cwd: root });
  assert.equal(g.code, 2);
  assert.match(g.stderr, /^rt open: unexpected argument "b"\nUsage: /);
});

test("rt call: open and its seed 000 alias open_file_chunk", async () => {
  const root = tempTree({ "f.txt": lines(300) });
  const { results } = await rtBatch(
    [
      { tool: "open", args: { path: "f.txt:150" } },
      { tool: "open_file_chunk", args: { path: "f.txt:150" } },
      { tool: "open_file_chunk", args: { path: "f.txt", start: 3, end: 4 } },
    ],
    { cwd: root },
  );
  assert.equal(results[0].output, expected("f.txt", 100, 199, 300));
  assert.deepEqual(results[1], results[0]);
  assert.deepEqual(results[2], {
    success: true,
    output: expected("f.txt", 3, 4, 300),
    path: "f.txt",
    start_line: 3,
    end_line: 4,
    total_lines: 300,
  });
});
