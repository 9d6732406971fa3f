// A large file is edited through a window of its lines (edit/largeText.ts):
// edit_lines and edit plan from the lines around the change, and line IDs are
// reconciled from the window alone. The window must change nothing a caller
// sees: over generated files (LF, CRLF and mixed endings, a BOM, no final
// newline, bytes that are not UTF-8, repeated lines) and generated edits, two
// workspaces holding the same file, one editing through the window and one
// the whole file, give the same results (output, error, every result field),
// the same bytes, the same line IDs and the same remembered view, and undo
// restores the same bytes. The window is used here for every size; in rt it
// is used for files too large for a syntax check (.txt files are not checked,
// so both ways agree on that too).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { setWindowedEditFromBytes } from "../../src/workspace/applyEdit.ts";
import { soak, tempTree } from "../helpers.ts";
import { scanText, windowModel } from "../../src/edit/largeText.ts";
import { planStringEditInWindow } from "../../src/edit/stringEdits.ts";
import { parseFile, serialize, type EditTarget } from "../../src/edit/fileModel.ts";
import { hashLine, hashLinesOf } from "../../src/workspace/lineIds.ts";

const WORDS = [
  "alpha",
  "beta",
  "  gamma",
  "    delta()",
  "",
  "\tepsilon",
  "zeta = 1",
  "é ü",
  "😀 x",
  "return x",
  "}",
  "  }",
];

function generated(rnd: (n: number) => number): Buffer {
  const parts: Buffer[] = [];
  if (rnd(6) === 0) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  const crlf = rnd(4);
  const n = 1 + rnd(rnd(3) === 0 ? 200 : 60);
  for (let i = 0; i < n; i++) {
    const kind = rnd(12);
    if (kind === 0) parts.push(Buffer.from([0x61, 0xff, 0x62]));
    else if (kind < 5) parts.push(Buffer.from(WORDS[rnd(WORDS.length)]));
    else parts.push(Buffer.from(`line ${rnd(3) === 0 ? rnd(10) : i} ${"x".repeat(rnd(4))}`));
    const last = i === n - 1;
    if (!last || rnd(4) > 0) parts.push(Buffer.from(crlf === 0 || (crlf === 1 && rnd(2) === 0) ? "\r\n" : "\n"));
  }
  return Buffer.concat(parts);
}

function content(rnd: (n: number) => number, k: number): string {
  const lines = Array.from({ length: rnd(4) }, () =>
    rnd(3) === 0 ? WORDS[rnd(WORDS.length)] : `new ${k} ${rnd(100)}`,
  );
  return lines.join(rnd(5) === 0 ? "\r\n" : "\n") + (rnd(2) === 0 ? "\n" : "");
}

test("editing through a window equals editing the whole file (generated files and edits)", async () => {
  let seed = 20261127;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return n <= 0 ? 0 : seed % n;
  };
  // 120 generated files with their edits in `npm test`, 300 in the soak run (the same seed: the first 120).
  const CASES = soak(120, 300);
  let windowedCalls = 0;
  for (let k = 0; k < CASES; k++) {
    const bytes = generated(rnd);
    const whole = tempTree({ "f.txt": bytes });
    const windowed = tempTree({ "f.txt": bytes });
    const wsWhole = createWorkspace({ root: whole, env: {} });
    const wsWindowed = createWorkspace({ root: windowed, env: {} });
    const both = async (tool: string, args: Record<string, unknown>) => {
      const before = fs.readFileSync(path.join(whole, "f.txt"));
      const a = await callTool(wsWhole, tool, args);
      const restore = setWindowedEditFromBytes(0);
      let b;
      try {
        b = await callTool(wsWindowed, tool, args);
      } finally {
        restore();
      }
      const what = `case ${k}: ${tool} ${JSON.stringify(args)} on ${JSON.stringify(fs.readFileSync(path.join(whole, "f.txt")).toString("latin1"))}`;
      assert.deepEqual(b, a, what);
      assert.ok(
        fs.readFileSync(path.join(windowed, "f.txt")).equals(fs.readFileSync(path.join(whole, "f.txt"))),
        `${what}: bytes differ: ${JSON.stringify(fs.readFileSync(path.join(windowed, "f.txt")).toString("latin1"))} (from ${JSON.stringify(before.toString("latin1"))})`,
      );
      assert.deepEqual(wsWindowed.lineIds.viewed("f.txt"), wsWhole.lineIds.viewed("f.txt"), `${what}: views differ`);
      return a;
    };
    const text = () => fs.readFileSync(path.join(whole, "f.txt"), "utf8");
    const lineCount = () => text().split("\n").length - (text().endsWith("\n") ? 1 : 0);
    let ids: string[] = [];
    for (let op = 0, ops = 2 + rnd(4); op < ops; op++) {
      const kind = rnd(10);
      const n = Math.max(1, lineCount());
      const line = 1 + rnd(n + 1);
      if (kind === 0) {
        const r = await both("read", { path: "f.txt", ids: true });
        ids = (r.line_ids as string[] | undefined) ?? [];
      } else if (kind === 1) {
        // Another program writes the file: the next edit reconciles its IDs from every line.
        const changed = Buffer.concat([Buffer.from(`outside ${k}\n`), fs.readFileSync(path.join(whole, "f.txt"))]);
        fs.writeFileSync(path.join(whole, "f.txt"), changed);
        fs.writeFileSync(path.join(windowed, "f.txt"), changed);
      } else if (kind <= 5) {
        const command = ["replace", "insert", "delete"][rnd(3)];
        const args: Record<string, unknown> = { path: "f.txt", command, force: rnd(4) === 0, dry_run: rnd(8) === 0 };
        if (command === "insert") args.insert_line = rnd(n + 1);
        else {
          args.start_line = line;
          args.end_line = Math.min(n + 1, line + rnd(3));
        }
        if (command !== "delete") args.new_content = content(rnd, k);
        if (rnd(3) === 0) args.indent_level = rnd(3) * 2;
        windowedCalls++;
        await both("edit_lines", args);
      } else if (kind === 6 && ids.length > 1) {
        // Several changes, by line ID (some of them stale) and by number.
        const a = rnd(ids.length);
        const b = rnd(ids.length);
        const changes = [
          { line_id: `${a + 1}:${ids[a]}`, new_content: content(rnd, k) },
          b === a ? { after_line_id: 0, new_content: "top" } : { line_id: ids[b], delete: true },
        ];
        windowedCalls++;
        await both("edit_lines", { path: "f.txt", changes });
      } else {
        // old_string: a line, two lines, a fragment of one, or text that is not there.
        const lines = text().replace(/\r\n/g, "\n").split("\n");
        const i = rnd(lines.length);
        const pick = rnd(4);
        const old =
          pick === 0
            ? lines[i]
            : pick === 1
              ? `${lines[i]}\n${lines[i + 1] ?? ""}`
              : pick === 2
                ? lines[i].slice(1, 4)
                : "not in the file";
        windowedCalls++;
        await both("edit", {
          path: "f.txt",
          old_string: old,
          new_string: rnd(4) === 0 ? "" : content(rnd, k).replace(/\n$/, ""),
          force: rnd(4) === 0,
        });
      }
    }
    // Undo restores the same bytes in both, entry by entry.
    for (let u = 0; u < 2; u++) await both("undo_edit", { path: "f.txt" });
    await both("read", { path: "f.txt", ids: true });
  }
  assert.ok(windowedCalls > CASES * 1.5, `only ${windowedCalls} edits`);
});

test("a unique exact old_string of a large file is planned in a window; the model of the whole file is never made", async () => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `value_${i} = ${i}`);
  const bytes = Buffer.from(`${lines.join("\n")}\n`);
  const large = scanText(bytes);
  const snap = { root: "/", rel: "f.txt", bytes, large } as unknown as EditTarget;
  Object.defineProperty(snap, "model", { get: () => assert.fail("the whole model was made") });
  const p = await planStringEditInWindow(snap, {
    old_string: "value_40000 = 40000\n",
    new_string: "value_40000 = 0\n",
  });
  assert.ok(p && p.window);
  assert.equal(p.start, 40001);
  assert.deepEqual(p.tiers[0].lines, [40001]);
  assert.ok(p.window.oldCount < 200, `a window of ${p.window.oldCount} lines`);
  // Not unique, not there, or across a CRLF ending: not planned in a window.
  assert.equal(await planStringEditInWindow(snap, { old_string: "value_4000", new_string: "x" }), undefined);
  assert.equal(await planStringEditInWindow(snap, { old_string: "absent", new_string: "x" }), undefined);
  const crlf = scanText(Buffer.from("a\r\nb\r\n"));
  assert.equal(
    await planStringEditInWindow({ ...snap, large: crlf } as EditTarget, { old_string: "a\nb", new_string: "x" }),
    undefined,
  );
});

test("scanText locates the lines parseFile gives, and hashLinesOf equals hashLine of each (generated bytes)", () => {
  let seed = 5;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return n <= 0 ? 0 : seed % n;
  };
  for (let k = 0; k < 3000; k++) {
    const bytes = generated(rnd);
    const model = parseFile(bytes);
    const t = scanText(bytes);
    const what = JSON.stringify(bytes.toString("latin1"));
    assert.deepEqual(Array.from(hashLinesOf(t)), model.lines.map(hashLine), what);
    // The lines located are parseFile's: text, endings, final newline, usual ending, BOM.
    const all = windowModel(t, 0, t.count);
    assert.deepEqual(
      [all.lines, all.eols, all.finalNewline, all.eol, t.bom],
      [model.lines, model.eols, model.finalNewline, model.eol, model.bom],
      what,
    );
    assert.ok(
      Buffer.concat([t.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), serialize(all)]).equals(bytes),
      what,
    );
  }
});
