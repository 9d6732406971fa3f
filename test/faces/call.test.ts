// `rt call TOOL`: JSON arguments from stdin or --args, one JSON result object,
// exit 0 on success, 1 on a tool error, 2 on a usage error (unknown tool,
// schema violation naming the field and showing the schema). `rt call --batch`:
// JSON Lines in, one result line per request, in order, in one process.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { CLI, lines, rt, rtBatch, rtCall, tempTree } from "../helpers.ts";

test("arguments from stdin or --args; the result is one JSON object on one line; exit 0", async () => {
  const root = tempTree({ "f.txt": lines(3) });
  const viaStdin = await rt(["call", "read"], { cwd: root, input: JSON.stringify({ path: "f.txt", limit: 2 }) });
  assert.equal(viaStdin.code, 0, viaStdin.stderr);
  assert.equal(viaStdin.stdout.split("\n").length, 2, "one line and its newline");
  assert.ok(viaStdin.stdout.endsWith("\n"));
  const res = JSON.parse(viaStdin.stdout);
  assert.deepEqual(res, {
    success: true,
    output: "   1: line 1\n   2: line 2\n... (showing lines 1-2 of 3, limit 2; use offset=3 to continue)",
    path: "f.txt",
    start_line: 1,
    line_count: 2,
    total_lines: 3,
    truncated: true,
  });
  const viaArgs = await rt(["call", "read", "--args", JSON.stringify({ path: "f.txt", limit: 2 })], { cwd: root });
  assert.equal(viaArgs.stdout, viaStdin.stdout);
  assert.equal(viaArgs.stderr, "");
  // Pretty-printed JSON on stdin is fine too.
  const pretty = await rt(["call", "open"], { cwd: root, input: JSON.stringify({ path: "f.txt" }, null, 2) });
  assert.equal(JSON.parse(pretty.stdout).output, "--- f.txt (lines 1-3 of 3) ---\n1: line 1\n2: line 2\n3: line 3");
});

test("a tool error is a result with success false and exit 1", async () => {
  const root = tempTree();
  const r = await rtCall("read", { path: "missing.txt" }, { cwd: root });
  assert.equal(r.code, 1);
  assert.deepEqual(r.result, { success: false, output: "", error: "missing.txt: file not found", error_type: "tool" });
  assert.equal(r.stderr, "");
});

test("schema violations: exit 2, the message names each offending field and shows the schema", async () => {
  const root = tempTree({ "f.txt": "x\n" });
  const r = await rtCall("read", { path: 7, offset: "ten", extra: true }, { cwd: root });
  assert.equal(r.code, 2);
  assert.equal(r.result.success, false);
  assert.equal(r.result.error_type, "usage");
  assert.equal(r.result.tool, "read");
  const [msg, schemaLine] = (r.result.error as string).split("\nschema: ");
  assert.match(msg, /^invalid arguments for read: /);
  assert.match(msg, /path: .*expected string/);
  assert.match(msg, /offset: .*expected number/);
  assert.match(msg, /extra/);
  const schema = JSON.parse(schemaLine);
  assert.equal(schema.type, "object");
  assert.deepEqual(schema.required, ["path"]);
  assert.deepEqual(Object.keys(schema.properties).sort(), [
    "as_images",
    "end_line",
    "ids",
    "limit",
    "offset",
    "pages",
    "path",
  ]);
  // Empty stdin means {}: the required field is named.
  const empty = await rt(["call", "grep"], { cwd: root, input: "" });
  assert.equal(empty.code, 2);
  assert.match(JSON.parse(empty.stdout).error, /^invalid arguments for grep: pattern: /);
});

test("usage errors: unknown tool, bad JSON, non-object arguments, wrong number of tool names (exit 2)", async () => {
  const root = tempTree();
  const cases: Array<[string[], string | undefined, RegExp]> = [
    [
      ["call", "frobnicate", "--args", "{}"],
      undefined,
      /^unknown tool "frobnicate"; available tools: (?=.*\bread\b)(?=.*\bopen\b)(?=.*\bscroll\b)(?=.*\bfind\b)(?=.*\bgrep\b)(?=.*\bgrep_file\b)(?=.*\bls\b)/,
    ],
    [["call", "read", "--args", "{path:"], undefined, /^arguments are not valid JSON: /],
    [["call", "read"], "not json", /^arguments are not valid JSON: /],
    [["call", "read", "--args", "[1,2]"], undefined, /^arguments must be a JSON object/],
    [["call", "read", "--args", "null"], undefined, /^arguments must be a JSON object/],
    [["call"], "", /^rt call needs a tool name: rt call TOOL \[--args JSON\]$/],
    [["call", "read", "open", "--args", "{}"], undefined, /^rt call takes one tool name, got 2$/],
    [["call", "--batch", "read"], "", /^rt call --batch takes no tool name/],
  ];
  for (const [args, input, re] of cases) {
    const r = await rt(args, { cwd: root, input });
    assert.equal(r.code, 2, args.join(" "));
    const res = JSON.parse(r.stdout);
    assert.equal(res.success, false);
    assert.equal(res.error_type, "usage");
    assert.match(res.error, re, args.join(" "));
  }
  const badOpt = await rt(["call", "read", "--frob"], { cwd: root });
  assert.equal(badOpt.code, 2);
  assert.match(badOpt.stderr, /^rt call: Unknown option '--frob'; --help lists the options\n/);
});

test("every tool and seed 000 alias is reachable through rt call", async () => {
  const root = tempTree({ "src/a.ts": "const x = 1;\n" });
  const calls: Array<[string, Record<string, unknown>]> = [
    ["scroll", { path: "src/a.ts", direction: "+" }],
    ["scroll_file", { path: "src/a.ts", direction: "-" }],
    ["read", { path: "src/a.ts" }],
    ["read_file", { path: "src/a.ts" }],
    ["open", { path: "src/a.ts" }],
    ["open_file_chunk", { path: "src/a.ts:1" }],
    ["find", { pattern: "a.ts" }],
    ["find_file", { pattern: "a.ts" }],
    ["glob", { pattern: "**/*.ts" }],
    ["grep", { pattern: "const" }],
    ["search_dir", { pattern: "const" }],
    ["grep-file", { pattern: "const", path: "src/a.ts" }],
    ["search_file", { pattern: "const", path: "src/a.ts" }],
    ["ls", {}],
    ["list_dir", { path: "src" }],
  ];
  const { results } = await rtBatch(
    calls.map(([tool, args]) => ({ tool, args })),
    { cwd: root },
  );
  results.forEach((r, i) => {
    assert.equal(r.success, true, `${calls[i][0]}: ${r.error}`);
    assert.equal(typeof r.output, "string");
    assert.ok(r.output.length > 0);
  });
});

test("--batch: one result line per request, in order; bad lines answered with errors, later lines still run", async () => {
  const root = tempTree({ "f.txt": lines(300) });
  const input = [
    JSON.stringify({ tool: "open", args: { path: "f.txt:150" } }),
    "this is not json",
    JSON.stringify({ tool: "nope", args: {} }),
    JSON.stringify({ args: { path: "f.txt" } }),
    JSON.stringify([1, 2]),
    JSON.stringify({ tool: "read", args: { path: 5 } }),
    JSON.stringify({ tool: "read", args: { path: "missing" } }),
    JSON.stringify({ tool: "scroll", args: { path: "f.txt", direction: "+" } }),
    JSON.stringify({ tool: "read", args: { path: "f.txt", offset: 300 } }),
    JSON.stringify({ tool: "ls" }),
  ];
  const r = await rt(["call", "--batch"], { cwd: root, input: input.join("\n") + "\n" });
  assert.equal(r.code, 0);
  const out = r.stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(out.length, input.length);
  assert.match(out[0].output, /^--- f\.txt \(lines 100-199 of 300\) ---/);
  assert.deepEqual([out[1].success, out[1].error_type], [false, "usage"]);
  assert.match(out[1].error, /^line 2: not valid JSON: /);
  assert.match(out[2].error, /^unknown tool "nope"/);
  assert.equal(out[3].error, 'line 4: expected {"tool": NAME, "args": {...}}');
  assert.equal(out[4].error, 'line 5: expected {"tool": NAME, "args": {...}}');
  assert.match(out[5].error, /^invalid arguments for read: path: /);
  assert.deepEqual([out[6].error, out[6].error_type], ["missing: file not found", "tool"]);
  assert.match(
    out[7].output,
    /^--- f\.txt \(lines 198-297 of 300\) ---/,
    "state carries over between calls of one batch",
  );
  assert.equal(out[8].output, " 300: line 300");
  assert.equal(out[9].success, true, "args may be left out");
});

test("--batch: blank lines are skipped, CRLF line ends and a missing final newline are fine", async () => {
  const root = tempTree({ "f.txt": lines(3) });
  const input = `${JSON.stringify({ tool: "read", args: { path: "f.txt", limit: 1 } })}\r\n\r\n   \n${JSON.stringify({ tool: "find", args: { pattern: "f" } })}`;
  const r = await rt(["call", "--batch"], { cwd: root, input });
  const out = r.stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(out.length, 2);
  assert.equal(out[0].success, true);
  assert.equal(out[1].output, "f.txt");
  const none = await rt(["call", "--batch"], { cwd: root, input: "" });
  assert.deepEqual([none.code, none.stdout], [0, ""]);
});

test("--batch: hundreds of calls in one process, answered in order", async () => {
  const root = tempTree({ "f.txt": lines(1000) });
  const reqs = Array.from({ length: 400 }, (_, i) => ({
    tool: i % 2 ? "open" : "read",
    args: i % 2 ? { path: `f.txt:${i + 51}` } : { path: "f.txt", offset: i + 1, limit: 1 },
  }));
  const t0 = Date.now();
  const { code, results } = await rtBatch(reqs, { cwd: root });
  assert.equal(code, 0);
  assert.equal(results.length, 400);
  results.forEach((r, i) => {
    if (i % 2) assert.equal(r.start_line, i + 1);
    else
      assert.equal(
        r.output,
        `${String(i + 1).padStart(4)}: line ${i + 1}\n... (showing lines ${i + 1}-${i + 1} of 1000, limit 1; use offset=${i + 2} to continue)`,
      );
  });
  assert.ok(Date.now() - t0 < 20_000);
});

/** A long-running `rt call --batch`: send a request, wait for its result line. */
function batchSession(cwd: string) {
  const env = { ...process.env };
  delete env.RT_ROOT;
  const child = spawn(process.execPath, [CLI, "call", "--batch"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let buf = "";
  const waiting: Array<(line: string) => void> = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d: string) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      waiting.shift()?.(line);
    }
  });
  return {
    call(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
      return new Promise((resolve) => {
        waiting.push((line) => resolve(JSON.parse(line)));
        child.stdin.write(`${JSON.stringify({ tool, args })}\n`);
      });
    },
    close(): Promise<number | null> {
      return new Promise((resolve) => {
        child.on("close", resolve);
        child.stdin.end();
      });
    },
  };
}

test("--batch: line IDs stay consistent across calls, and follow edits made meanwhile by someone else", async () => {
  const root = tempTree({ "a.ts": "}\nconst a = 1;\n}\n\nconst b = 2;\n" });
  const s = batchSession(root);
  const r1 = await s.call("read", { path: "a.ts", ids: true });
  const ids = r1.line_ids as string[];
  assert.equal(new Set(ids).size, 5);
  const g = await s.call("grep", { pattern: "const", ids: true });
  assert.deepEqual(
    (g.matches as Array<{ line_id: string }>).map((m) => m.line_id),
    [ids[1], ids[4]],
  );
  const r2 = await s.call("read", { path: "a.ts", ids: true, offset: 3 });
  assert.deepEqual(r2.line_ids, ids.slice(2));
  // Another program inserts two lines at the top while the batch is running.
  fs.writeFileSync(path.join(root, "a.ts"), "// one\n// two\n" + fs.readFileSync(path.join(root, "a.ts"), "utf8"));
  const r3 = await s.call("read", { path: "a.ts", ids: true });
  assert.deepEqual((r3.line_ids as string[]).slice(2), ids);
  assert.ok(!ids.includes(r3.line_ids[0]) && !ids.includes(r3.line_ids[1]));
  const g2 = await s.call("grep-file", { pattern: "const b", path: "a.ts", ids: true });
  assert.equal(g2.output, `7:[LID:${ids[4]}]: const b = 2;`);
  assert.equal(await s.close(), 0);
  // A later process sees the same IDs.
  const later = await rtCall("read", { path: "a.ts", ids: true }, { cwd: root });
  assert.deepEqual(later.result.line_ids, r3.line_ids);
});

test("--batch keeps state in memory: it does not re-read unchanged state per call", async () => {
  const root = tempTree({ "f.txt": lines(500) });
  const s = batchSession(root);
  const first = await s.call("open", { path: "f.txt" });
  assert.equal(first.start_line, 1);
  const ids = (await s.call("read", { path: "f.txt", ids: true, limit: 3 })).line_ids;
  // Pull the state directory out from under the running batch: it carries on from memory.
  fs.rmSync(path.join(root, ".rt"), { recursive: true });
  const next = await s.call("scroll", { path: "f.txt", direction: "+" });
  assert.equal(next.start_line, 99);
  const again = await s.call("read", { path: "f.txt", ids: true, limit: 3 });
  assert.deepEqual(again.line_ids, ids);
  assert.equal(await s.close(), 0);
});
