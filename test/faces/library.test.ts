// rt as a library: the same registry and policy as the CLI and `rt call`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createWorkspace, callTool, TOOLS, findTool, toolNames, jsonSchemaOf, Workspace } from "../../src/index.ts";
import { REPO, lines, rtCall, tempTree } from "../helpers.ts";

test('import { createWorkspace, callTool } from "src/index.ts" works and matches rt call', async () => {
  const root = tempTree({ "src/app.ts": lines(120, (i) => `const v${i} = ${i};`) });
  const ws = createWorkspace({ root });
  assert.ok(ws instanceof Workspace);
  assert.equal(ws.root, root);
  const lib = await callTool(ws, "open", { path: "src/app.ts:60" });
  const cli = await rtCall("open", { path: "src/app.ts:60" }, { cwd: root });
  assert.deepEqual(lib, cli.result);
  const grep = await callTool(ws, "search_dir", { pattern: "v11[0-9] =" });
  assert.equal(grep.count, 10);
});

test("failures are results, never exceptions", async () => {
  const ws = createWorkspace({ root: tempTree() });
  assert.deepEqual(await callTool(ws, "read", { path: "nope" }), {
    success: false,
    output: "",
    error: "nope: file not found",
    error_type: "tool",
  });
  const unknown = await callTool(ws, "nope", {});
  assert.equal(unknown.error_type, "usage");
  const bad = await callTool(ws, "read", { path: 1 });
  assert.equal(bad.error_type, "usage");
  const outside = await callTool(ws, "read", { path: "../../etc/passwd" });
  assert.equal(outside.error_type, "tool");
  assert.match(outside.error as string, /outside the workspace root/);
  const noArgs = await callTool(ws, "ls", undefined);
  assert.equal(noArgs.success, true);
});

test("the registry: names, seed 000 aliases, read-only flags, descriptions, JSON schemas", () => {
  for (const n of ["read", "open", "scroll", "find", "grep", "grep_file", "ls"]) assert.ok(toolNames().includes(n), n);
  const aliases: Record<string, string> = {
    open_file_chunk: "open",
    scroll_file: "scroll",
    find_file: "find",
    glob: "find",
    search_dir: "grep",
    search_file: "grep_file",
    read_file: "read",
    list_dir: "ls",
  };
  for (const [alias, name] of Object.entries(aliases)) assert.equal(findTool(alias)?.name, name, alias);
  const seen = new Set<string>();
  for (const t of TOOLS) {
    for (const n of [t.name, ...t.aliases]) {
      assert.ok(!seen.has(n), `${n} registered once`);
      seen.add(n);
    }
    assert.ok(t.description.length > 40, t.name);
    assert.equal(typeof t.handler, "function");
    const schema = jsonSchemaOf(t);
    assert.equal(schema.type, "object", t.name);
    assert.equal(schema.additionalProperties, false, t.name);
    assert.equal(schema.$schema, undefined);
  }
  for (const n of ["read", "open", "scroll", "find", "grep", "grep_file", "ls"])
    assert.equal(findTool(n)!.readOnly, true, n);
  assert.equal(findTool("nope"), undefined);
});

test('the built package is importable by its name: import { createWorkspace, callTool } from "rt-agent"', () => {
  const pkg = "rt-agent";
  const code = `import { createWorkspace, callTool } from "${pkg}";
const ws = createWorkspace({ root: process.argv[1] });
const r = await callTool(ws, "read", { path: "a.txt" });
process.stdout.write(JSON.stringify(r));`;
  const root = tempTree({ "a.txt": "hello\n" });
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code, root], { cwd: REPO, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).output, "   1: hello");
});
