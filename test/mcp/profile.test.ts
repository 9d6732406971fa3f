// Profiles and kill switches over MCP: under safe-read-only, editing tools are
// listed as previews (dry_run required, read-only), tools that can only write
// are not listed, and the policy refuses any write that is attempted anyway.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree, treeHash } from "../helpers.js";
import { call, connectStdio } from "./helpers.js";

test("safe-read-only: editing tools are listed as dry-run-only previews; undo_edit is not listed", async () => {
  const root = tempTree({ "a.py": "x = 1\n" });
  const s = await connectStdio(root, ["--profile", "safe-read-only"], {}, ["--seed-names"]);
  try {
    const { tools } = await s.client.listTools();
    const t = (name: string) => tools.find((x) => x.name === name);
    for (const name of ["edit_lines", "edit_range", "insert_at", "edit", "multi_edit", "edit_file", "write"]) {
      const tool = t(name);
      assert.ok(tool, `${name} is listed`);
      assert.match(
        tool.description!,
        /^\[Preview only: the safe-read-only profile lets nothing be modified\. Every call must pass dry_run: true/,
        name,
      );
      assert.ok((tool.inputSchema.required ?? []).includes("dry_run"), `${name} requires dry_run`);
      assert.deepEqual({ ...tool.annotations }, { readOnlyHint: true, idempotentHint: true }, name);
    }
    assert.equal(t("undo_edit"), undefined, "undo_edit has no dry run: not listed");
    assert.equal(t("read")!.annotations!.readOnlyHint, true);
    // bash runs in the read-only sandbox here: not read-only, but not destructive either.
    assert.deepEqual({ ...t("bash")!.annotations }, { destructiveHint: false });

    const before = treeHash(root);
    const refused = await call(s.client, "edit_range", {
      path: "a.py",
      start_line: 1,
      end_line: 1,
      new_text: "x = 2\n",
    });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /profile is safe-read-only: nothing may be modified\. Pass dry_run: true/);
    const undo = await call(s.client, "undo_edit", { path: "a.py" });
    assert.equal(undo.isError, true, "an unlisted tool called by name reaches the policy, which refuses it");
    assert.match(
      undo.text,
      /profile is safe-read-only: nothing may be modified\. undo_edit has no dry run; use the dev profile/,
    );
    assert.doesNotMatch(
      undo.text,
      /dry_run: true/,
      "undo_edit takes no dry_run: the refusal must not advise passing it",
    );
    const preview = await call(s.client, "edit_range", {
      path: "a.py",
      start_line: 1,
      end_line: 1,
      new_text: "x = 2\n",
      dry_run: true,
    });
    assert.equal(preview.isError, false, preview.text);
    assert.match(preview.text, /-x = 1\n\+x = 2/);
    assert.equal(treeHash(root), before, "nothing was written");
  } finally {
    await s.close();
  }
});

test("RT_ENABLE_SWE=0: no SWE tool (navigation, search, editing) is listed, even with --seed-names, and each is refused if called", async () => {
  const root = tempTree({ "a.txt": "a\n" });
  const s = await connectStdio(root, [], { env: { RT_ENABLE_SWE: "0" } }, ["--seed-names"]);
  try {
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    const swe = [
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
    ];
    const seedNames = ["open_file_chunk", "scroll_file", "find_file", "search_dir", "search_file"];
    for (const name of [...swe, ...seedNames]) assert.ok(!names.includes(name), name);
    for (const name of ["read", "ls", "bash"]) assert.ok(names.includes(name), name);
    const r = await call(s.client, "write", { path: "b.txt", content: "b\n" });
    assert.equal(r.isError, true);
    assert.match(r.text, /RT_ENABLE_SWE=0/);
    assert.equal(fs.existsSync(path.join(root, "b.txt")), false);
    for (const [name, args] of [
      ["grep", { pattern: "a" }],
      ["search_dir", { pattern: "a" }],
      ["open", { path: "a.txt" }],
      ["find", { pattern: "a" }],
    ] as const) {
      const g = await call(s.client, name, args);
      assert.equal(g.isError, true, name);
      assert.match(g.text, /is disabled: RT_ENABLE_SWE=0 turns off rt's SWE tools/, name);
    }
    assert.equal((await call(s.client, "read", { path: "a.txt" })).isError, false);
  } finally {
    await s.close();
  }
});

test("dev profile: the same tools are listed as writes", async () => {
  const root = tempTree({});
  const s = await connectStdio(root);
  try {
    const { tools } = await s.client.listTools();
    const edit = tools.find((t) => t.name === "edit_lines")!;
    assert.doesNotMatch(edit.description!, /Preview only/);
    assert.ok(!(edit.inputSchema.required ?? []).includes("dry_run"));
    assert.ok(tools.some((t) => t.name === "undo_edit"));
  } finally {
    await s.close();
  }
});
