// read (agent face, seeds 001/002): `{n:>4}: text`, default limit 2000 lines,
// offset/limit, lines over 2000 characters cut with a marker, a 50 KB output
// cap, a trailer saying offset=N, metadata line_count/total_lines/truncated,
// and with ids: true a [LID:xxxx] per line and an aligned line_ids array.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { MAX_LINE_CHARS, READ_DEFAULT_LIMIT, READ_MAX_OUTPUT_BYTES } from "../../src/base/limits.ts";
import { lines, rt, rtCall, tempTree } from "../helpers.ts";

function ws(files: Record<string, string | Buffer>) {
  const root = tempTree(files);
  const w = createWorkspace({ root, env: {} });
  return { root, call: (args: Record<string, unknown>) => callTool(w, "read", args) };
}

test("numbered lines `{n:>4}: text`; metadata; no trailer when everything is shown", async () => {
  const { call } = ws({ "a.txt": "first\n  indented\n\ttab\n\nlast" });
  const r = await call({ path: "a.txt" });
  assert.equal(r.success, true);
  assert.equal(r.output, "   1: first\n   2:   indented\n   3: \ttab\n   4: \n   5: last");
  assert.equal(r.line_count, 5);
  assert.equal(r.total_lines, 5);
  assert.equal(r.truncated, false);
  assert.equal(r.path, "a.txt");
  assert.equal(r.line_ids, undefined, "no line_ids unless asked");
});

test("numbers wider than four digits are not cut", async () => {
  const { call } = ws({ "n.txt": lines(10_001) });
  const r = await call({ path: "n.txt", offset: 9_999 });
  assert.equal(r.output, "9999: line 9999\n10000: line 10000\n10001: line 10001");
});

test("default limit is 2000 lines, with a trailer giving the offset to continue from", async () => {
  const { call } = ws({ "long.txt": lines(2500) });
  const r = await call({ path: "long.txt" });
  const out = (r.output as string).split("\n");
  assert.equal(READ_DEFAULT_LIMIT, 2000);
  assert.equal(out.length, 2001);
  assert.equal(out[0], "   1: line 1");
  assert.equal(out[1999], "2000: line 2000");
  assert.equal(out[2000], "... (showing lines 1-2000 of 2500, limit 2000; use offset=2001 to continue)");
  assert.deepEqual([r.line_count, r.total_lines, r.truncated, r.start_line], [2000, 2500, true, 1]);
  const rest = await call({ path: "long.txt", offset: 2001 });
  const o2 = (rest.output as string).split("\n");
  assert.equal(o2.length, 500);
  assert.equal(o2[0], "2001: line 2001");
  assert.equal(o2[499], "2500: line 2500");
  assert.deepEqual([rest.line_count, rest.total_lines, rest.truncated], [500, 2500, false]);
});

test("offset and limit pick a window", async () => {
  const { call } = ws({ "f.txt": lines(30) });
  const r = await call({ path: "f.txt", offset: 10, limit: 3 });
  assert.equal(
    r.output,
    "  10: line 10\n  11: line 11\n  12: line 12\n... (showing lines 10-12 of 30, limit 3; use offset=13 to continue)",
  );
  assert.deepEqual([r.line_count, r.total_lines, r.truncated, r.start_line], [3, 30, true, 10]);
  const end = await call({ path: "f.txt", offset: 29, limit: 10 });
  assert.equal(end.output, "  29: line 29\n  30: line 30");
  assert.equal(end.truncated, false);
  const past = await call({ path: "f.txt", offset: 31 });
  assert.equal(past.success, false);
  assert.equal(past.error, "offset 31 is past the end of f.txt (30 lines); use an offset from 1 to 30");
});

test("lines longer than 2000 characters are cut with a marker", async () => {
  const long = "x".repeat(MAX_LINE_CHARS + 345);
  const { call } = ws({ "wide.txt": `short\n${long}\n${"y".repeat(MAX_LINE_CHARS)}\n` });
  const r = await call({ path: "wide.txt" });
  const out = (r.output as string).split("\n");
  assert.equal(out[1], `   2: ${"x".repeat(MAX_LINE_CHARS)}… [line cut: 345 more characters]`);
  assert.equal(out[2], `   3: ${"y".repeat(MAX_LINE_CHARS)}`, "exactly 2000 characters is not cut");
  assert.equal(r.truncated, false);
});

test("output is capped at 50 KB, with a trailer naming the cap and the offset", async () => {
  const { call } = ws({ "big.txt": lines(1500, (i) => `${i} ${"z".repeat(95)}`) });
  const r = await call({ path: "big.txt" });
  const out = (r.output as string).split("\n");
  const trailer = out.pop()!;
  const body = out.join("\n") + "\n";
  assert.ok(Buffer.byteLength(body) <= READ_MAX_OUTPUT_BYTES, `${Buffer.byteLength(body)} bytes`);
  assert.ok(Buffer.byteLength(body) > READ_MAX_OUTPUT_BYTES - 200, "filled up to the cap");
  const shown = out.length;
  assert.equal(r.line_count, shown);
  assert.equal(r.truncated, true);
  assert.equal(
    trailer,
    `... (showing lines 1-${shown} of 1500, output reached the 50 KB cap; use offset=${shown + 1} to continue)`,
  );
  // Continuing from there picks up exactly the next line.
  const next = await call({ path: "big.txt", offset: shown + 1, limit: 1 });
  assert.match(next.output as string, new RegExp(`^\\s*${shown + 1}: ${shown + 1} z+\n`));
  // With ids the cap holds too, and line_ids matches the lines shown.
  const withIds = await call({ path: "big.txt", ids: true });
  assert.equal((withIds.line_ids as string[]).length, withIds.line_count);
  assert.ok(Buffer.byteLength(withIds.output as string) <= READ_MAX_OUTPUT_BYTES + 200);
  // Multi-byte text is measured in bytes, not characters.
  const mb = ws({ "mb.txt": lines(1000, () => "é".repeat(60)) });
  const m = await mb.call({ path: "mb.txt" });
  const mbody = (m.output as string).split("\n").slice(0, -1).join("\n") + "\n";
  assert.ok(Buffer.byteLength(mbody) <= READ_MAX_OUTPUT_BYTES);
  assert.equal(m.truncated, true);
});

test("a single line that alone exceeds the cap is still shown (cut at 2000 characters)", async () => {
  const { call } = ws({ "one.txt": "q".repeat(200_000) + "\nsecond\n" });
  const r = await call({ path: "one.txt", limit: 1 });
  assert.equal(r.success, true);
  assert.match(
    r.output as string,
    /^   1: q{2000}… \[line cut: 198000 more characters\]\n\.\.\. \(showing lines 1-1 of 2/,
  );
});

test("ids: true adds [LID:xxxx] after the number and an aligned line_ids array", async () => {
  const { call } = ws({ "c.ts": "a\n}\n\n}\n\nb\n" });
  const r = await call({ path: "c.ts", ids: true, offset: 2, limit: 4 });
  const ids = r.line_ids as string[];
  assert.equal(ids.length, 4);
  assert.equal(new Set(ids).size, 4);
  for (const id of ids) assert.match(id, /^[0-9a-z]{4,6}$/);
  assert.equal(
    r.output,
    `   2: [LID:${ids[0]}] }\n   3: [LID:${ids[1]}] \n   4: [LID:${ids[2]}] }\n   5: [LID:${ids[3]}] \n... (showing lines 2-5 of 6, limit 4; use offset=6 to continue)`,
  );
  const all = await call({ path: "c.ts", ids: true });
  assert.deepEqual((all.line_ids as string[]).slice(1, 5), ids);
});

test("CRLF files show no carriage returns; a missing final newline adds no line", async () => {
  const { call } = ws({ "w.txt": "one\r\ntwo\r\nthree" });
  const r = await call({ path: "w.txt" });
  assert.equal(r.output, "   1: one\n   2: two\n   3: three");
  assert.equal(r.total_lines, 3);
});

test("empty files, directories and missing files", async () => {
  const { call } = ws({ "empty.txt": "", "dir/x.txt": "x\n" });
  const e = await call({ path: "empty.txt" });
  assert.equal(e.success, true);
  assert.equal(e.output, "(empty.txt is empty: 0 lines)");
  assert.deepEqual([e.line_count, e.total_lines, e.truncated], [0, 0, false]);
  const ei = await call({ path: "empty.txt", ids: true });
  assert.deepEqual(ei.line_ids, []);
  const d = await call({ path: "dir" });
  assert.equal(d.success, false);
  assert.equal(d.error, "dir: is a directory; use ls or find to list it");
  const m = await call({ path: "nope.txt" });
  assert.equal(m.error, "nope.txt: file not found");
  assert.equal(m.error_type, "tool");
});

test("argument checking: offset and limit are positive integers, path is required, no unknown fields", async () => {
  const { call } = ws({ "f.txt": "x\n" });
  for (const [args, field] of [
    [{ path: "f.txt", offset: 0 }, "offset"],
    [{ path: "f.txt", limit: 0 }, "limit"],
    [{ path: "f.txt", limit: 1.5 }, "limit"],
    [{ path: "f.txt", offset: "3" }, "offset"],
    [{}, "path"],
    [{ path: "f.txt", bogus: 1 }, "bogus"],
  ] as const) {
    const r = await call(args as Record<string, unknown>);
    assert.equal(r.success, false, JSON.stringify(args));
    assert.equal(r.error_type, "usage");
    assert.match(r.error as string, new RegExp(`invalid arguments for read: .*${field}`));
    assert.match(r.error as string, /\nschema: \{"type":"object"/);
  }
});

test("CLI: rt read PATH [--offset N] [--limit N] [--ids], and read_file through rt call", async () => {
  const root = tempTree({ "f.txt": lines(30) });
  const r = await rt(["read", "f.txt", "--offset", "29"], { cwd: root });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "  29: line 29\n  30: line 30\n");
  const l = await rt(["read", "f.txt", "--limit", "1"], { cwd: root });
  assert.equal(l.stdout, "   1: line 1\n... (showing lines 1-1 of 30, limit 1; use offset=2 to continue)\n");
  const i = await rt(["read", "f.txt", "--limit", "1", "--ids"], { cwd: root });
  assert.match(i.stdout, /^   1: \[LID:[0-9a-z]{4,6}\] line 1\n/);
  const bad = await rt(["read", "f.txt", "--offset", "x"], { cwd: root });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^rt read: --offset must be a whole number of at least 1, not "x"\nUsage: rt read PATH/);
  const past = await rt(["read", "f.txt", "--offset", "99"], { cwd: root });
  assert.equal(past.code, 1);
  assert.equal(past.stderr, "rt read: offset 99 is past the end of f.txt (30 lines); use an offset from 1 to 30\n");
  const c = await rtCall("read_file", { path: "f.txt", offset: 2, limit: 1 }, { cwd: root });
  assert.equal(c.code, 0);
  assert.deepEqual(
    {
      success: c.result.success,
      output: c.result.output,
      line_count: c.result.line_count,
      total_lines: c.result.total_lines,
      truncated: c.result.truncated,
    },
    {
      success: true,
      output: "   2: line 2\n... (showing lines 2-2 of 30, limit 1; use offset=3 to continue)",
      line_count: 1,
      total_lines: 30,
      truncated: true,
    },
  );
});
