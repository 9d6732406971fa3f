// Hostile depth and backtracking from the model fail their call, never the process: an ast_grep
// pattern nested deeper than the native binding's stack (it used to kill rt mcp with a
// segmentation fault, dropping every client), generated nestings of every kind, and a
// bash_output filter that backtracks without end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempTree, seededRandom } from "../helpers.ts";
import { startHttp, connectHttp, call } from "../mcp/helpers.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { findMatches } from "../../src/parsers/astGrep.ts";
import { getBackground } from "../../src/shell/background.ts";
import { ToolError } from "../../src/base/errors.ts";
import {
  AST_GREP_PATTERN_MAX_CHARS,
  AST_GREP_PATTERN_MAX_DEPTH,
  REGEX_FILTER_BUDGET_MS,
} from "../../src/base/limits.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a pattern 50,000 parentheses deep is an error of its call; rt mcp keeps serving another client", async () => {
  const root = tempTree({ "a.ts": "const v = foo((1));\n" });
  const server = await startHttp(root);
  try {
    const a = await connectHttp(server.url, { token: server.token });
    const b = await connectHttp(server.url, { token: server.token });
    const deep = `${"(".repeat(50_000)}x${")".repeat(50_000)}`;
    const bad = await call(a.client, "ast_grep", { pattern: deep });
    assert.equal(bad.isError, true);
    assert.match(bad.text, new RegExp(`at most ${AST_GREP_PATTERN_MAX_CHARS.toLocaleString("en-US")} characters`));
    // Under the size cap but far deeper than any real pattern: refused by its depth.
    const nested = `${"!".repeat(10_000)}x`;
    const deepBad = await call(a.client, "ast_grep", { pattern: nested, lang: "typescript" });
    assert.equal(deepBad.isError, true);
    assert.match(deepBad.text, new RegExp(`nested at most ${AST_GREP_PATTERN_MAX_DEPTH} levels`));
    const other = await call(b.client, "ast_grep", { pattern: "foo($A)" });
    assert.equal(other.isError, false, other.text);
    assert.match(other.text, /^a\.ts:1: const v = foo\(\(1\)\);\n\s+\$A=\(1\)$/);
    const again = await call(a.client, "read", { path: "a.ts" });
    assert.match(again.text, /const v = foo/);
    assert.equal(server.child.exitCode, null, "the server is still running");
    await a.client.close();
    await b.client.close();
  } finally {
    await server.stop();
  }
});

test("generated nestings (seeded): too deep is a ToolError, shallow ones search; none reaches the native stack", () => {
  const r = seededRandom(2811);
  const kinds: Array<[string, (n: number) => string]> = [
    ["typescript", (n) => `${"(".repeat(n)}x${")".repeat(n)}`],
    ["typescript", (n) => `${"!".repeat(n)}x`],
    ["typescript", (n) => `${"x+".repeat(n)}x`],
    ["typescript", (n) => `${"[".repeat(n)}${"]".repeat(n)}`],
    ["typescript", (n) => `${"f(".repeat(n)}${")".repeat(n)}`],
    ["python", (n) => `${"(".repeat(n)}x${")".repeat(n)}`],
    ["python", (n) => `${"not ".repeat(n)}x`],
    ["rust", (n) => `${"& ".repeat(n)}x`],
    ["c", (n) => `${"*".repeat(n)}x`],
    ["json", (n) => `${"[".repeat(n)}${"]".repeat(n)}`],
  ];
  for (let i = 0; i < 30; i++) {
    const [lang, make] = r.pick(kinds);
    const deep = make(AST_GREP_PATTERN_MAX_DEPTH + 1 + r.int(4000));
    // Refused for its depth, or (where the grammar reads it flat, as Rust's `& & x` and C's `**x` at the top) by the binding.
    assert.throws(
      () => findMatches("x", lang as "typescript", deep),
      (e: unknown) => e instanceof Error,
      `${lang} ${deep.slice(0, 20)}`,
    );
    if (lang !== "rust" && lang !== "c")
      assert.throws(
        () => findMatches("x", lang as "typescript", deep),
        (e: unknown) => e instanceof ToolError && /levels/.test((e as Error).message),
      );
    const shallow = make(1 + r.int(20));
    try {
      findMatches("let x = 1", lang as "typescript", shallow);
    } catch (e) {
      // A shallow pattern may be invalid syntax (the binding says so); it is never refused for its depth.
      assert.doesNotMatch((e as Error).message, /levels|characters long/);
    }
  }
});

test("a backtracking bash_output filter is stopped within its budget; the output is not lost", async () => {
  const root = tempTree({});
  const ws = createWorkspace({ root, profile: "dev", env: { ...process.env, RT_ROOT: undefined } });
  const start = await callTool(ws, "bash", { command: `printf '%s\\n' ${"a".repeat(40)}b ok`, background: true });
  const id = start.id as string;
  // The command has ended (its output is all there) before the filter reads it.
  for (let i = 0; i < 200 && getBackground(id).exit === undefined; i++) await sleep(50);
  const t0 = Date.now();
  const bad = await callTool(ws, "bash_output", { id, filter: "^(a+)+$" });
  const took = Date.now() - t0;
  assert.equal(bad.success, false);
  assert.match(bad.error ?? "", new RegExp(`took more than ${REGEX_FILTER_BUDGET_MS} ms`));
  assert.ok(took < REGEX_FILTER_BUDGET_MS + 5000, `stopped after ${took} ms`);
  const good = await callTool(ws, "bash_output", { id, filter: "^ok$" });
  assert.equal(good.success, true, good.error);
  assert.equal(good.stdout, "ok\n");
  assert.match(good.output, /1 lines did not match the filter/);
});
