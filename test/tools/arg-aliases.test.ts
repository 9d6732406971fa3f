// The argument names of Claude Code and the seeds, accepted by rt's tools: each
// alias gives the same result as its canonical name, is validated like it (an
// error names the alias the caller used), conflicts are clear errors, and the
// JSON schema documents it on the canonical argument without listing it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { findTool, jsonSchemaOf } from "../../src/tools/registry.ts";
import { lines, tempTree } from "../helpers.ts";

function setup() {
  const root = tempTree({
    "src/app.py": lines(40, (i) => (i % 10 === 0 ? `def Needle_${i}(): pass` : `x${i} = ${i}`)),
    "docs/readme.md": "a needle\nanother Needle\n",
  });
  const ws = createWorkspace({ root, env: {} });
  return { root, call: (tool: string, args: Record<string, unknown>) => callTool(ws, tool, args) };
}

/** [tool, arguments with canonical names, the same with the alias]. */
const SAME: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ["read", { path: "src/app.py", limit: 3 }, { file_path: "src/app.py", limit: 3 }],
  ["read", { path: "src/app.py", offset: 5, limit: 3 }, { path: "src/app.py", start_line: 5, end_line: 7 }],
  ["read_file", { path: "src/app.py", offset: 38 }, { file_path: "src/app.py", start_line: 38 }],
  ["open", { path: "src/app.py:20" }, { file_path: "src/app.py:20" }],
  ["grep-file", { pattern: "needle", path: "src/app.py", ignore_case: true, limit: 2 }, { pattern: "needle", file_path: "src/app.py", case_insensitive: true, head_limit: 2 }],
  ["grep", { pattern: "needle", ignore_case: true }, { pattern: "needle", case_insensitive: true }],
  ["grep", { pattern: "needle", ignore_case: true, limit: 1 }, { pattern: "needle", ignore_case: true, head_limit: 1 }],
  ["grep", { pattern: "needle", glob: "*.md" }, { pattern: "needle", glob_filter: "*.md" }],
  ["search_dir", { pattern: "Needle", path: "src" }, { pattern: "Needle", root: "src" }],
  ["find", { pattern: "app", path: "src" }, { pattern: "app", root: "src" }],
  ["find_file", { pattern: "*.md", path: "docs" }, { pattern: "*.md", root: "docs" }],
];

test("each alias gives the same result as the canonical argument", async () => {
  const { call } = setup();
  for (const [tool, canonical, aliased] of SAME) {
    const a = await call(tool, canonical);
    const b = await call(tool, aliased);
    assert.equal(a.success, true, `${tool} ${JSON.stringify(canonical)}: ${a.error}`);
    assert.deepEqual(b, a, `${tool} ${JSON.stringify(aliased)}`);
  }
});

test("both names with the same value are accepted; with different values, an error names both", async () => {
  const { call } = setup();
  const same = await call("read", { path: "src/app.py", file_path: "src/app.py", limit: 1 });
  assert.equal(same.success, true);
  for (const [tool, args, alias, canonical] of [
    ["read", { path: "src/app.py", file_path: "docs/readme.md" }, "file_path", "path"],
    ["grep", { pattern: "x", limit: 3, head_limit: 4 }, "head_limit", "limit"],
    ["grep", { pattern: "x", ignore_case: true, case_insensitive: false }, "case_insensitive", "ignore_case"],
    ["find", { pattern: "x", path: "src", root: "docs" }, "root", "path"],
    ["bash", { command: "true", background: false, run_in_background: true }, "run_in_background", "background"],
  ] as const) {
    const r = await call(tool, args);
    assert.equal(r.success, false, `${tool} ${JSON.stringify(args)}`);
    assert.equal(r.error_type, "usage");
    assert.match(r.error!, new RegExp(`${alias} is another name for ${canonical}, and both are given with different values`));
  }
});

test("an alias's value is validated like the canonical argument, and the error names the alias", async () => {
  const { call } = setup();
  for (const [tool, args, name] of [
    ["grep", { pattern: "x", head_limit: 0 }, "head_limit"],
    ["grep", { pattern: "x", head_limit: "5" }, "head_limit"],
    ["read", { file_path: 12 }, "file_path"],
    ["read", { path: "src/app.py", start_line: 0 }, "start_line"],
    ["bash", { command: "true", run_in_background: "yes" }, "run_in_background"],
  ] as const) {
    const r = await call(tool, args);
    assert.equal(r.success, false, JSON.stringify(args));
    assert.equal(r.error_type, "usage");
    assert.match(r.error!, new RegExp(`${name}: .*\\(${name} is `), r.error);
  }
  // Unknown names are still refused.
  const r = await call("grep", { pattern: "x", filepath: "src" });
  assert.equal(r.success, false);
  assert.match(r.error!, /filepath/);
});

test("read's end_line: an inclusive last line, checked against offset and limit", async () => {
  const { call } = setup();
  const r = await call("read", { path: "src/app.py", start_line: 3, end_line: 3 });
  assert.equal(r.output, "   3: x3 = 3\n... (showing lines 3-3 of 40, limit 1; use offset=4 to continue)");
  const reversed = await call("read", { path: "src/app.py", start_line: 9, end_line: 2 });
  assert.match(reversed.error!, /end_line 2 is before the first line shown \(9\)/);
  const clash = await call("read", { path: "src/app.py", offset: 1, end_line: 5, limit: 3 });
  assert.match(clash.error!, /limit 3 and end_line 5 disagree/);
});

test("bash's run_in_background starts a background shell", async () => {
  const { call } = setup();
  const r = await call("bash", { command: "sleep 0.1", run_in_background: true, description: "wait a bit" });
  assert.equal(r.success, true, r.error);
  assert.equal(r.background, true);
  await call("kill_shell", { id: r.id as string });
});

test("the JSON schema lists the canonical names, each description naming its aliases", () => {
  const expect: Record<string, Record<string, string[]>> = {
    read: { path: ["file_path"], offset: ["start_line"] },
    open: { path: ["file_path"] },
    "grep-file": { path: ["file_path"], ignore_case: ["case_insensitive"], limit: ["head_limit"] },
    grep: { path: ["root"], ignore_case: ["case_insensitive"], limit: ["head_limit"], glob: ["glob_filter"] },
    find: { path: ["root"] },
    bash: { background: ["run_in_background"] },
  };
  for (const [tool, fields] of Object.entries(expect)) {
    const schema = jsonSchemaOf(findTool(tool)!) as { properties: Record<string, { description?: string }> };
    for (const [field, aliases] of Object.entries(fields)) {
      for (const a of aliases) {
        assert.ok(schema.properties[field].description!.includes(`alias: ${a}`), `${tool}.${field} names ${a}`);
        assert.ok(!(a in schema.properties) || a === "end_line", `${tool} does not list ${a} as a property of its own`);
      }
    }
  }
  for (const seedArg of ["context_before", "context_after", "show_line_numbers"]) {
    assert.ok(seedArg in (jsonSchemaOf(findTool("grep")!).properties as object), `grep takes ${seedArg}`);
  }
});

test("grep's seed options: context_before / context_after, show_line_numbers: false", async () => {
  const { call } = setup();
  const r = await call("grep-file", { pattern: "Needle_20", path: "src/app.py", context_before: 2, context_after: 1 });
  assert.equal(r.output, "18- x18 = 18\n19- x19 = 19\n20: def Needle_20(): pass\n21- x21 = 21");
  const n = await call("grep", { pattern: "needle", path: "docs", ignore_case: true, show_line_numbers: false });
  assert.equal(n.output, "docs/readme.md: a needle\ndocs/readme.md: another Needle");
});
