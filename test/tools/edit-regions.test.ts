// One region per change: an edit_lines call with several changes shows each
// changed region with its own context, never the untouched lines between
// distant changes. Checked as invariants over generated calls: every shown line
// is the file's line at that number, every changed line is shown, and every
// shown line is within the context of a change.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { lines, tempTree } from "../helpers.ts";

const CONTEXT = 3;

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The numbered lines of an edit's output: [number, text]. */
function shownLines(output: string): Array<[number, string]> {
  return output
    .split("\n")
    .map((l) => /^\s*(\d+): (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [Number(m[1]), m[2]]);
}

test("two distant changes: two windows parted by ..., nothing in between", async () => {
  const root = tempTree({ "a.txt": lines(200) });
  const ws = createWorkspace({ root, env: {} });
  const r = await callTool(ws, "edit_lines", {
    path: "a.txt",
    changes: [
      { line_id: 10, new_content: "TEN" },
      { line_id: 150, new_content: "ONE-FIFTY" },
    ],
  });
  assert.equal(r.success, true, r.error);
  assert.equal(
    r.output,
    [
      "✓ Edited a.txt:10,150",
      ...[7, 8, 9].map((n) => `${String(n).padStart(4)}: line ${n}`),
      "  10: TEN",
      ...[11, 12, 13].map((n) => `${String(n).padStart(4)}: line ${n}`),
      "  ...",
      ...[147, 148, 149].map((n) => `${String(n).padStart(4)}: line ${n}`),
      " 150: ONE-FIFTY",
      ...[151, 152, 153].map((n) => `${String(n).padStart(4)}: line ${n}`),
    ].join("\n"),
  );
  // Changes whose contexts meet share one window.
  const near = await callTool(ws, "edit_lines", {
    path: "a.txt",
    changes: [
      { line_id: 20, new_content: "A" },
      { line_id: 26, new_content: "B" },
    ],
  });
  assert.deepEqual(
    shownLines(near.output).map(([n]) => n),
    Array.from({ length: 13 }, (_, i) => 17 + i),
  );
  assert.doesNotMatch(near.output, /\.\.\./);
});

test("invariant over generated calls: each change is shown with its context, and only that", async () => {
  const next = random(12);
  for (let round = 0; round < 60; round++) {
    const total = 30 + Math.floor(next() * 300);
    const root = tempTree({ "f.txt": lines(total, (i) => `orig ${i}`) });
    const ws = createWorkspace({ root, env: {} });
    // Non-overlapping changes at distinct lines: replace, insert, delete.
    const count = 1 + Math.floor(next() * 5);
    const starts = new Set<number>();
    while (starts.size < count) starts.add(1 + Math.floor(next() * (total - 3)));
    const sorted = [...starts].sort((a, b) => a - b);
    const changes: Array<Record<string, unknown>> = [];
    let prevEnd = 0;
    for (const s of sorted) {
      if (s <= prevEnd) continue;
      const kind = Math.floor(next() * 3);
      const n = 1 + Math.floor(next() * 3);
      const content = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, k) => `new ${s}.${k}`).join("\n");
      if (kind === 0) {
        const end = Math.min(total, s + n - 1);
        changes.push({ start_line_id: s, end_line_id: end, new_content: content });
        prevEnd = end;
      } else if (kind === 1) {
        changes.push({ after_line_id: s, new_content: content });
        prevEnd = s;
      } else {
        changes.push({ line_id: s, delete: true });
        prevEnd = s;
      }
    }
    const r = await callTool(ws, "edit_lines", { path: "f.txt", changes });
    assert.equal(r.success, true, r.error);
    const after = fs.readFileSync(path.join(root, "f.txt"), "utf8").split("\n").slice(0, -1);
    const shown = shownLines(r.output);
    // 1. Every shown line is the file's line at that number.
    for (const [n, text] of shown) assert.equal(text, after[n - 1], `round ${round}: line ${n}`);
    // 2. Every new line (and the place of every deletion) is shown, with its context.
    const changed = after.map((l, i) => (l.startsWith("new ") ? i + 1 : 0)).filter((n) => n > 0);
    const shownSet = new Set(shown.map(([n]) => n));
    for (const n of changed) {
      for (let k = Math.max(1, n - CONTEXT); k <= Math.min(after.length, n + CONTEXT); k++)
        assert.ok(shownSet.has(k), `round ${round}: line ${k} near changed line ${n}`);
    }
    // 3. Nothing far from a change is shown: each shown line is within CONTEXT of a changed line or a
    //    deletion's place (the first line after the deleted ones, or the last line).
    const origNumber = (l: string) => (l.startsWith("orig ") ? Number(l.slice(5)) : undefined);
    const anchors = new Set(changed);
    for (let i = 0; i < after.length; i++) {
      const o = origNumber(after[i]);
      const prev = i > 0 ? origNumber(after[i - 1]) : 0;
      if (o !== undefined && prev !== undefined && o !== prev + 1) anchors.add(i + 1);
    }
    if (origNumber(after[after.length - 1] ?? "") !== undefined && origNumber(after[after.length - 1]) !== total)
      anchors.add(after.length + 1);
    for (const n of shownSet) {
      assert.ok(
        [...anchors].some((a) => Math.abs(a - n) <= CONTEXT + 1),
        `round ${round}: line ${n} is far from every change (${[...anchors].join(",")})\n${r.output}`,
      );
    }
    // 4. Windows are in order and parted by "..." only where lines were skipped.
    const numbers = shown.map(([n]) => n);
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
    );
    const gaps = numbers.filter((n, i) => i > 0 && n !== numbers[i - 1] + 1).length;
    assert.equal((r.output.match(/^ {2}\.\.\.$/gm) ?? []).length, gaps, r.output);
  }
});

test("lines in the untouched gap are not marked as shown: a stale number there is still refused", async () => {
  const root = tempTree({ "a.txt": lines(100) });
  const ws = createWorkspace({ root, env: {} });
  await callTool(ws, "read", { path: "a.txt" });
  // Inserts two lines at the top and changes line 90: lines 10-80 shift by two and were not shown again.
  const r = await callTool(ws, "edit_lines", {
    path: "a.txt",
    changes: [
      { after_line_id: 1, new_content: "x\ny" },
      { line_id: 90, new_content: "NINETY" },
    ],
  });
  assert.equal(r.success, true, r.error);
  const stale = await callTool(ws, "edit_lines", {
    path: "a.txt",
    command: "replace",
    start_line: 50,
    new_content: "FIFTY",
  });
  assert.equal(stale.success, false);
  assert.match(stale.error!, /line 50 is ambiguous/);
  // Shown lines are current: line 92 (NINETY) was shown after the edit.
  const fresh = await callTool(ws, "edit_lines", {
    path: "a.txt",
    command: "replace",
    start_line: 92,
    new_content: "ninety",
  });
  assert.equal(fresh.success, true, fresh.error);
});
