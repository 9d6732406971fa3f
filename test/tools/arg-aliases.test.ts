// The argument names of Claude Code and the seeds, accepted by rt's tools: each
// alias gives the same result as its canonical name, is validated like it (an
// error names the alias the caller used), conflicts are clear errors, and the
// JSON schema documents it on the canonical argument without listing it.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
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
  [
    "grep-file",
    { pattern: "needle", path: "src/app.py", ignore_case: true, limit: 2 },
    { pattern: "needle", file_path: "src/app.py", case_insensitive: true, head_limit: 2 },
  ],
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
    assert.match(
      r.error!,
      new RegExp(`${alias} is another name for ${canonical}, and both are given with different values`),
    );
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

/** Every tool that edits a file, with arguments that change src/app.py (the same change under path and file_path). */
const EDITING: Array<[string, Record<string, unknown>]> = [
  ["edit", { old_string: "x3 = 3", new_string: "x3 = 33" }],
  ["str_replace", { old_string: "x3 = 3", new_string: "x3 = 33" }],
  [
    "multi_edit",
    {
      edits: [
        { old_string: "x3 = 3", new_string: "x3 = 33" },
        { old_string: "x5 = 5", new_string: "x5 = 55" },
      ],
    },
  ],
  ["edit_lines", { command: "replace", start_line: 3, new_content: "x3 = 33" }],
  [
    "edit_lines",
    {
      changes: [
        { line_id: 3, new_content: "x3 = 33" },
        { line_id: 30, delete: true },
      ],
    },
  ],
  ["edit_range", { start_line: 3, end_line: 4, new_text: "x3 = 33\n" }],
  ["insert_at", { line: 3, new_text: "inserted = 1\n" }],
  ["edit_file", { old: "x3 = 3", new: "x3 = 33" }],
  ["write", { content: "everything = 'new'\n" }],
];

test("the editing tools take file_path for path: the same change, the same result, and the file ends the same", async () => {
  for (const [tool, rest] of EDITING) {
    const results = [];
    const files = [];
    for (const name of ["path", "file_path"]) {
      const { root, call } = setup();
      // write overwrites only a file it has shown.
      if (tool === "write") await call("read", { path: "src/app.py" });
      const r = await call(tool, { [name]: "src/app.py", ...rest });
      assert.equal(r.success, true, `${tool} with ${name}: ${r.error}`);
      results.push(r);
      files.push(fs.readFileSync(path.join(root, "src/app.py"), "utf8"));
    }
    assert.deepEqual(results[1], results[0], tool);
    assert.equal(files[1], files[0], tool);
  }
  // undo_edit too.
  const { root, call } = setup();
  const before = fs.readFileSync(path.join(root, "src/app.py"), "utf8");
  await call("edit", { file_path: "src/app.py", old_string: "x3 = 3", new_string: "x3 = 33" });
  const u = await call("undo_edit", { file_path: "src/app.py" });
  assert.equal(u.success, true, u.error);
  assert.equal(fs.readFileSync(path.join(root, "src/app.py"), "utf8"), before);
});

test("file_path on the editing tools is validated like path, and a conflict with path changes nothing", async () => {
  const { root, call } = setup();
  const before = fs.readFileSync(path.join(root, "src/app.py"), "utf8");
  for (const tool of [
    "edit",
    "multi_edit",
    "edit_lines",
    "edit_range",
    "insert_at",
    "edit_file",
    "write",
    "undo_edit",
  ]) {
    const wrongType = await call(tool, { file_path: 12 });
    assert.equal(wrongType.error_type, "usage", tool);
    assert.match(wrongType.error!, /file_path: .*\(file_path is path\)/, `${tool}: ${wrongType.error}`);
    const clash = await call(tool, {
      path: "src/app.py",
      file_path: "docs/readme.md",
      old_string: "x",
      new_string: "y",
      content: "z",
    });
    assert.equal(clash.error_type, "usage", tool);
    assert.match(clash.error!, /file_path is another name for path, and both are given with different values/, tool);
  }
  assert.equal(fs.readFileSync(path.join(root, "src/app.py"), "utf8"), before, "nothing was written");
  for (const tool of [
    "edit",
    "multi_edit",
    "edit_lines",
    "edit_range",
    "insert_at",
    "edit_file",
    "write",
    "undo_edit",
  ]) {
    const schema = jsonSchemaOf(findTool(tool)!) as {
      properties: Record<string, { description?: string }>;
      required?: string[];
    };
    assert.ok(schema.properties.path.description!.includes("alias: file_path"), `${tool}'s schema names file_path`);
    assert.ok(!("file_path" in schema.properties), tool);
    assert.ok(schema.required?.includes("path"), tool);
  }
});

test("seed 002's result fields: write's created and bytes_written, edit_lines' lines_changed", async () => {
  const { root, call } = setup();
  const created = await call("write", { file_path: "new/file.txt", content: "héllo\nworld\n" });
  assert.equal(created.success, true, created.error);
  assert.deepEqual([created.created, created.bytes_written], [true, Buffer.byteLength("héllo\nworld\n")]);
  assert.match(created.output, /^✓ Created new\/file\.txt/);
  const again = await call("write", { path: "new/file.txt", content: "héllo\nworld\n" });
  assert.deepEqual(
    [again.created, again.bytes_written, again.changed],
    [false, 0, false],
    "already there: nothing written",
  );
  const over = await call("write", { path: "new/file.txt", content: "x\n" });
  assert.deepEqual([over.created, over.bytes_written], [false, 2]);
  assert.match(over.output, /^✓ Wrote new\/file\.txt/);
  const dry = await call("write", { path: "new/other.txt", content: "x\n", dry_run: true });
  assert.deepEqual([dry.created, dry.bytes_written], [false, 0]);
  assert.equal(fs.existsSync(path.join(root, "new/other.txt")), false);

  // lines_changed: the lines each change touched (a replacement counts its longer side).
  const cases: Array<[Record<string, unknown>, number]> = [
    [{ command: "replace", start_line: 2, new_content: "a\nb\nc" }, 3],
    [{ command: "insert", insert_line: 0, new_content: "top" }, 1],
    [{ command: "delete", start_line: 10, end_line: 13 }, 4],
    [
      {
        changes: [
          { line_id: 20, new_content: "one" },
          { start_line_id: 25, end_line_id: 26, new_content: "two" },
          { after_line_id: 30, new_content: "p\nq\nr" },
        ],
      },
      6,
    ],
  ];
  for (const [args, n] of cases) {
    const fresh = setup();
    const r = await fresh.call("edit_lines", { path: "src/app.py", ...args });
    assert.equal(r.success, true, r.error);
    assert.equal(r.lines_changed, n, JSON.stringify(args));
  }
});
