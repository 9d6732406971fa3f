// The cost of a miss: an old_string that is not in a file of megabytes is
// refused within a few hundred milliseconds of CPU time, because on a text
// larger than EDIT_FUZZY_UNBOUNDED_CHARS the approximate tiers run against
// EDIT_FUZZY_BUDGET_MS and stop there, saying so. Exact matches and smaller
// texts are not affected. Times are CPU times of this process (the machine is
// shared: wall time would count waiting for a CPU).
import { test } from "node:test";
import assert from "node:assert/strict";
import { planEdit, replaceInText } from "../../src/edit/match.ts";
import { EDIT_FUZZY_BUDGET_MS, EDIT_FUZZY_UNBOUNDED_CHARS } from "../../src/base/limits.ts";

function tsLines(bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = `export function area${i}(s: Shape, k: number): number { return s.id * ${i} + k; }`;
    out.push(l);
    size += l.length + 1;
  }
  return out.join("\n") + "\n";
}

function cpu<T>(f: () => T): { value: T; ms: number } {
  const t = process.cpuUsage();
  const value = f();
  const d = process.cpuUsage(t);
  return { value, ms: (d.user + d.system) / 1000 };
}

const BIG = tsLines(9 * 1024 * 1024);
/** The budget plus what comes before and around it (the view of the text, the exact search, the error). */
const MISS_LIMIT_MS = EDIT_FUZZY_BUDGET_MS + 600;

test("a miss in a 9 MB text costs a few hundred milliseconds, and says when the search stopped early", () => {
  for (const old of [
    "function nothere(a, b) {\n  return a + b;\n}\nconst q = 1;",
    "retrun s.id * 77 + k;",
    "  return s.id * 77  +  k; }",
  ]) {
    const { value: r, ms } = cpu(() => planEdit(BIG, old, "x"));
    assert.equal(r.ok, false);
    if (r.ok) continue;
    assert.ok(r.reason === "search-stopped" || r.reason === "not-found", r.reason);
    if (r.reason === "search-stopped") assert.match(r.message, /stopped early: after \d+ ms in the [a-z-]+ tier/);
    assert.ok(ms < MISS_LIMIT_MS, `${JSON.stringify(old)}: ${ms.toFixed(0)} ms of CPU time`);
  }
});

test("in a 9 MB text, exact matches and whole-line tiers are still found", () => {
  const exact = replaceInText(BIG, "return s.id * 77 + k;", "return s.id * 78 + k;");
  assert.ok(exact.ok && exact.outcome.tier === "exact");
  // Trailing blanks quoted that the file does not have: found by a string search, not by keying every line.
  const line = "export function area4242(s: Shape, k: number): number { return s.id * 4242 + k; }";
  const r = replaceInText(BIG, `${line}  \n`, `${line.replace("4242 + k", "4242 - k")}\n`);
  assert.ok(r.ok, r.ok ? "" : r.message);
  assert.equal(r.outcome.tier, "trailing-whitespace");
  assert.ok(r.text.includes("s.id * 4242 - k;"));
});

test("the budget: a spent one stops the looser tiers with a message; small texts are never bounded", () => {
  const text = "def f(a,  b):\n    return a\n";
  assert.ok(text.length < EDIT_FUZZY_UNBOUNDED_CHARS);
  const ok = planEdit(text, "def f(a, b):", "def f(a, c):");
  assert.ok(ok.ok && ok.tier === "inner-whitespace");
  const stopped = planEdit(text, "def f(a, b):", "def f(a, c):", { searchBudgetMs: -1 });
  assert.equal(stopped.ok, false);
  if (stopped.ok) return;
  assert.equal(stopped.reason, "search-stopped");
  assert.match(stopped.message, /Nothing was changed/);
  // An exact match needs no budget.
  const exact = planEdit(text, "return a", "return b", { searchBudgetMs: -1 });
  assert.ok(exact.ok && exact.tier === "exact");
});
