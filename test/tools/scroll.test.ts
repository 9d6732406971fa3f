// scroll (seed 000 §4.2.2): next/previous window from the last one shown,
// chunk 100 and overlap 2, remembered in the state file across processes;
// with no earlier window, + behaves like open.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { lines, rt, rtBatch, tempTree } from "../helpers.ts";
import { rtMain } from "../rtMain.ts";

const header = (file: string, s: number, e: number, total: number) => `--- ${file} (lines ${s}-${e} of ${total}) ---`;
const first = (out: string) => out.split("\n")[0];

test("with no earlier window, scroll + prints exactly what open prints", async () => {
  const root = tempTree({ "f.txt": lines(300) });
  const open = await rt(["open", "f.txt"], { cwd: root });
  fs.rmSync(path.join(root, ".rt"), { recursive: true });
  const s = await rtMain(["scroll", "f.txt", "+"], { cwd: root });
  assert.equal(s.code, 0, s.stderr);
  assert.equal(s.stdout, open.stdout);
  // And then scrolling goes on from there.
  const s2 = await rtMain(["scroll", "f.txt", "+"], { cwd: root });
  assert.equal(first(s2.stdout), header("f.txt", 99, 198, 300));
});

test("scroll + and - step by 98 lines (chunk 100, overlap 2), each call a separate process", async () => {
  const root = tempTree({ "f.txt": lines(300) });
  const steps: Array<[string[], string]> = [
    [["open", "f.txt"], header("f.txt", 1, 100, 300)],
    [["scroll", "f.txt", "+"], header("f.txt", 99, 198, 300)],
    [["scroll", "f.txt", "+"], header("f.txt", 197, 296, 300)],
    [["scroll", "f.txt", "+"], header("f.txt", 295, 300, 300)],
    [["scroll", "f.txt", "-"], header("f.txt", 197, 296, 300)],
    [["scroll", "f.txt", "-"], header("f.txt", 99, 198, 300)],
    [["scroll", "f.txt", "-"], header("f.txt", 1, 100, 300)],
  ];
  for (const [args, want] of steps) {
    const r = await rt(args, { cwd: root });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(first(r.stdout), want, args.join(" "));
  }
  // The overlap: the last two lines of one window open the next.
  const a = await rtMain(["open", "f.txt:51"], { cwd: root });
  const b = await rtMain(["scroll", "f.txt", "+"], { cwd: root });
  assert.deepEqual(a.stdout.trimEnd().split("\n").slice(-2), b.stdout.split("\n").slice(1, 3));
  assert.equal(b.stdout.split("\n")[1], "99: line 99");
});

test("scroll at the ends: - at the top says so, + past the end is an error", async () => {
  const root = tempTree({ "f.txt": lines(300) });
  await rtMain(["open", "f.txt"], { cwd: root });
  const up = await rtMain(["scroll", "f.txt", "-"], { cwd: root });
  assert.equal(up.code, 0);
  assert.equal(first(up.stdout), header("f.txt", 1, 100, 300));
  assert.match(up.stdout, /\n100: line 100\n\(already at the top of the file\)\n$/);
  await rtMain(["open", "f.txt:295-300"], { cwd: root });
  const down = await rtMain(["scroll", "f.txt", "+"], { cwd: root });
  assert.equal(down.code, 1);
  assert.equal(down.stderr, "rt scroll: already at the end of f.txt: lines 295-300 of 300 were the last window\n");
});

test("scroll continues from any open: a centered window, or a range (capped to 200)", async () => {
  const root = tempTree({ "f.txt": lines(1000) });
  const w = createWorkspace({ root, env: {} });
  const call = (tool: string, args: Record<string, unknown>) => callTool(w, tool, args);
  await call("open", { path: "f.txt:150" }); // 100-199
  assert.equal(
    first((await call("scroll", { path: "f.txt", direction: "-" })).output as string),
    header("f.txt", 2, 101, 1000),
  );
  await call("open", { path: "f.txt:10-900" }); // capped: 10-209
  assert.equal(
    first((await call("scroll", { path: "f.txt", direction: "+" })).output as string),
    header("f.txt", 108, 207, 1000),
  );
  assert.equal(
    first((await call("scroll", { path: "f.txt", direction: "down" })).output as string),
    header("f.txt", 206, 305, 1000),
  );
  assert.equal(
    first((await call("scroll", { path: "f.txt", direction: "up" })).output as string),
    header("f.txt", 108, 207, 1000),
  );
});

test("each file has its own window; state is keyed on the root-relative path", async () => {
  const root = tempTree({ "a.txt": lines(500), "sub/b.txt": lines(500) });
  await rtMain(["open", "a.txt:300"], { cwd: root });
  await rtMain(["open", "sub/b.txt"], { cwd: root });
  const a = await rtMain(["scroll", "a.txt", "+"], { cwd: root });
  assert.equal(first(a.stdout), header("a.txt", 348, 447, 500));
  const b = await rtMain(["scroll", "./sub/../sub/b.txt", "+"], { cwd: root });
  assert.equal(first(b.stdout), header("sub/b.txt", 99, 198, 500));
  const view = JSON.parse(fs.readFileSync(path.join(root, ".rt", "view.json"), "utf8"));
  assert.deepEqual(Object.keys(view.files).sort(), ["a.txt", "sub/b.txt"]);
  assert.deepEqual(view.files["a.txt"], { start: 348, end: 447, chunk: 100, overlap: 2 });
});

test("rt call: scroll and its alias scroll_file, within one batch and across processes", async () => {
  const root = tempTree({ "f.txt": lines(300) });
  const one = await rtBatch(
    [
      { tool: "scroll_file", args: { path: "f.txt", direction: "+" } },
      { tool: "scroll_file", args: { path: "f.txt", direction: "+" } },
      { tool: "scroll", args: { path: "f.txt", direction: "-" } },
    ],
    { cwd: root },
  );
  assert.deepEqual(
    one.results.map((r) => first(r.output)),
    [header("f.txt", 1, 100, 300), header("f.txt", 99, 198, 300), header("f.txt", 1, 100, 300)],
  );
  const two = await rtBatch([{ tool: "scroll_file", args: { path: "f.txt", direction: "+" } }], { cwd: root });
  assert.equal(first(two.results[0].output), header("f.txt", 99, 198, 300));
  const bad = await rtBatch([{ tool: "scroll", args: { path: "f.txt", direction: "sideways" } }], { cwd: root });
  assert.equal(bad.results[0].error_type, "usage");
  assert.match(bad.results[0].error, /direction/);
});

test("CLI: a direction other than + or - is a usage error", async () => {
  const root = tempTree({ "f.txt": lines(3) });
  const r = await rtMain(["scroll", "f.txt", "sideways"], { cwd: root });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'rt scroll: direction must be + or -, not "sideways"\nUsage: rt scroll PATH +|-\n');
  const m = await rtMain(["scroll", "f.txt"], { cwd: root });
  assert.equal(m.code, 2);
  assert.match(m.stderr, /^rt scroll: missing the direction \(\+ or -\)\n/, "names what is missing");
});
