// planEdit on a 10,000-line file stays fast even when it falls through every
// tier to the similarity scan (the brief: well under 100 ms). The bound here
// is looser than the goal because the test machine is shared; the benchmark
// (bench/edit-robustness) reports real timings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { planEdit } from "../../src/edit/match.ts";

/** Python-like code with pseudo-random names, so that blocks are not near-copies of each other. */
function bigFile(lines: number): string[] {
  let seed = 12345;
  const rand = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 8) % n);
  const syl = ["ka", "lo", "mi", "ne", "ru", "sta", "vo", "pe", "dri", "qua", "zen", "bo"];
  const word = (): string => Array.from({ length: 2 + rand(3) }, () => syl[rand(syl.length)]).join("");
  const out: string[] = [];
  while (out.length < lines) {
    out.push(`def ${word()}_${word()}(${word()}, ${word()}=None):`);
    out.push(`    """${word()} the ${word()} and return the ${word()}."""`);
    out.push(`    ${word()} = ${word()}(${word()}.${word()}, limit=${rand(100)})`);
    out.push(`    if ${word()} is None:`);
    out.push(`        raise ValueError("no ${word()} for ${word()}")`);
    out.push(`    return ${word()}(${word()}, status=${200 + rand(5)})`);
    out.push("");
  }
  return out.slice(0, lines);
}

/**
 * Median CPU time (user + system) of five runs: unlike wall time it does not
 * count waiting for a CPU, so the bound holds on a machine shared with other
 * work (the suite runs tests in parallel).
 */
function median(label: string, f: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = process.cpuUsage();
    f();
    const d = process.cpuUsage(t);
    times.push((d.user + d.system) / 1000);
  }
  times.sort((a, b) => a - b);
  const m = times[2];
  if (process.env.RT_TEST_VERBOSE) console.log(label, times.map((x) => x.toFixed(1)).join(" "));
  return m;
}

/** The goal is well under 100 ms on an idle machine; this bound leaves room for a loaded one. */
const LIMIT_MS = 300;

test("10,000 lines: a hallucinated old_string falls through every tier quickly", () => {
  const lines = bigFile(10_000);
  const text = lines.join("\n") + "\n";
  const old = "def frobnicate(self, a, b):\n    return self._frob(a) + b\n\nclass Zork:\n    pass";
  let outcome = planEdit(text, old, "x");
  const ms = median("hallucinated", () => (outcome = planEdit(text, old, "x")));
  assert.equal(outcome.ok, false);
  assert.ok(ms < LIMIT_MS, `${ms.toFixed(1)} ms`);
});

test("10,000 lines: a typo in a long old_string is found by similarity quickly", () => {
  const lines = bigFile(10_000);
  const text = lines.join("\n") + "\n";
  const target = lines.slice(5000, 5020);
  const old = [...target];
  const typo = old.findIndex((l, i) => i > 8 && l.includes("return "));
  old[typo] = old[typo].replace("return ", "retrun ");
  const neu = [...old];
  const changed = neu.findIndex((l) => l.includes("limit="));
  neu[changed] = neu[changed].replace("limit=", "limit=1+");
  let outcome = planEdit(text, old.join("\n"), neu.join("\n"));
  const ms = median("similar", () => (outcome = planEdit(text, old.join("\n"), neu.join("\n"))));
  assert.ok(outcome.ok && outcome.tier === "similar", JSON.stringify(outcome).slice(0, 300));
  assert.ok(ms < LIMIT_MS, `${ms.toFixed(1)} ms`);
});

test("10,000 lines of near-copies: similarity finds many places and says so quickly", () => {
  const lines = Array.from({ length: 10_000 }, (_, i) => `    value_${i % 1000} = compute(${i % 7}, limit=${i % 50})`);
  const text = lines.join("\n") + "\n";
  const old = lines.slice(4000, 4020).map((l) => l.replace("compute", "compute_"));
  let outcome = planEdit(text, old.join("\n"), old.join("\n") + "\n# x");
  const ms = median("near-copies", () => (outcome = planEdit(text, old.join("\n"), old.join("\n") + "\n# x")));
  assert.ok(!outcome.ok && outcome.reason === "ambiguous", JSON.stringify(outcome).slice(0, 300));
  assert.ok(outcome.message.length < 2000, "the list of places is capped");
  assert.ok(ms < LIMIT_MS, `${ms.toFixed(1)} ms`);
});

test("10,000 lines: a 500-line old_string that is not there", () => {
  const lines = bigFile(10_000);
  const text = lines.join("\n") + "\n";
  const old = Array.from({ length: 500 }, (_, i) => `    item_${i} = build(${i}, flag=True)`).join("\n");
  const ms = median("long-miss", () => planEdit(text, old, "x"));
  assert.ok(ms < LIMIT_MS, `${ms.toFixed(1)} ms`);
});
