// Line IDs held as runs of counters (idRuns.ts): every operation equals the
// same operation on the arrays of ID strings it stands for, over generated
// sequences; and the ID of a counter is the one rt has always made from it
// (a reference implementation of the bijection, character by character).
import { test } from "node:test";
import assert from "node:assert/strict";
import { IdRuns } from "../../src/workspace/idRuns.ts";
import { idFromCounter, idToCounter, reconcileIds } from "../../src/workspace/lineIds.ts";

/** The ID of a counter as rt 0.1 made it (appending one character at a time). */
function referenceId(counter: number): string {
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  let n = counter;
  const tiers = [3, 4, 5].map((rest) => {
    const space = 26 * 36 ** rest;
    let mult = Math.floor(space * 0.6180339887);
    while (gcd(mult, space) !== 1) mult++;
    return { rest, space, mult };
  });
  for (const tier of tiers) {
    if (n < tier.space || tier === tiers[tiers.length - 1]) {
      const m = Number((BigInt(n % tier.space) * BigInt(tier.mult)) % BigInt(tier.space));
      const low = 36 ** tier.rest;
      let s = "abcdefghijklmnopqrstuvwxyz"[Math.floor(m / low)];
      let q = m % low;
      for (let i = 0; i < tier.rest; i++) {
        s += "0123456789abcdefghijklmnopqrstuvwxyz"[q % 36];
        q = Math.floor(q / 36);
      }
      return s;
    }
    n -= tier.space;
  }
  throw new Error("unreachable");
}

test("idFromCounter makes the IDs it always made, and idToCounter inverts it (tier boundaries and random counters)", () => {
  const t4 = 26 * 36 ** 3;
  const t5 = 26 * 36 ** 4;
  const t6 = 26 * 36 ** 5;
  const counters = [0, 1, 2, t4 - 1, t4, t4 + 1, t4 + t5 - 1, t4 + t5, t4 + t5 + t6 - 1];
  let seed = 7;
  for (let i = 0; i < 20_000; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    counters.push(seed % (t4 + t5 + t6));
  }
  for (const c of counters) {
    assert.equal(idFromCounter(c), referenceId(c), `counter ${c}`);
    assert.equal(idToCounter(idFromCounter(c)), c);
  }
});

test("IdRuns: slices, concatenations, lookups and equality equal those of the ID arrays (generated sequences)", () => {
  let seed = 99;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return n <= 0 ? 0 : seed % n;
  };
  const arrayOf = (r: IdRuns) => r.toArray(idFromCounter);
  const generated = (): Array<string | null> => {
    const out: Array<string | null> = [];
    for (let k = 0, runs = rnd(6); k < runs; k++) {
      const start = rnd(3) === 0 ? -1 : rnd(3000);
      for (let j = 0, n = rnd(20); j < n; j++) out.push(start < 0 ? null : idFromCounter(start + j));
    }
    return out;
  };
  for (let k = 0; k < 2000; k++) {
    const ids = generated();
    const runs = IdRuns.fromIds(ids, idToCounter);
    const fresh = IdRuns.parse(runs.serialize())!;
    assert.deepEqual(arrayOf(fresh), ids);
    assert.ok(fresh.equals(runs));
    assert.equal(fresh.length, ids.length);
    for (let i = 0; i < ids.length; i++)
      assert.equal(fresh.counterAt(i) < 0 ? null : idFromCounter(fresh.counterAt(i)), ids[i]);
    const a = rnd(ids.length + 2);
    const b = rnd(ids.length + 2);
    assert.deepEqual(arrayOf(fresh.slice(a, b)), ids.slice(a, b));
    const other = generated();
    const joined = IdRuns.concat([fresh.slice(0, a), IdRuns.fromIds(other, idToCounter), fresh.slice(a)]);
    const expected = [...ids.slice(0, a), ...other, ...ids.slice(a)];
    assert.deepEqual(arrayOf(IdRuns.parse(joined.serialize())!), expected);
    // Equal sequences have equal runs, however they were cut.
    assert.ok(IdRuns.concat([fresh.slice(0, a), fresh.slice(a)]).equals(IdRuns.parse(fresh.serialize())!));
    assert.equal(IdRuns.fromIds(expected, idToCounter).equals(joined), true);
    const probe = ids.find((id) => id !== null);
    if (probe) assert.equal(fresh.indexOfCounter(idToCounter(probe)), ids.indexOf(probe));
    // Cut and joined from runs whose ID strings are at hand (a small file's IDs after an edit): the
    // strings are copied from them, and equal the ones made from the counters.
    const backed = IdRuns.fromIds(ids, idToCounter);
    assert.deepEqual(arrayOf(backed.slice(a, b)), ids.slice(a, b));
    const tail = IdRuns.fromIds(ids, idToCounter).slice(a);
    assert.deepEqual(arrayOf(IdRuns.concat([backed.slice(0, a), IdRuns.fresh(900_000 + k, 3), IdRuns.none(2), tail])), [
      ...ids.slice(0, a),
      ...[0, 1, 2].map((j) => idFromCounter(900_000 + k + j)),
      null,
      null,
      ...ids.slice(a),
    ]);
    const held = ids.filter((id): id is string => id !== null);
    assert.equal(fresh.distinct(), new Set(held).size === held.length);
    assert.equal(fresh.maxCounter(), held.length ? Math.max(...held.map(idToCounter)) : -1);
  }
  assert.equal(IdRuns.parse("3+x"), undefined);
  assert.equal(IdRuns.parse("1e5+2"), undefined);
});

test("reconcileIds on runs: one line changed in 500,000 keeps three runs and every other ID", () => {
  const n = 500_000;
  const hashes = Float64Array.from({ length: n }, (_, i) => i);
  const first = reconcileIds([], [], hashes, 0);
  const now = Float64Array.from(hashes);
  now[250_000] = -1;
  const runs = IdRuns.fromIds(first.ids, idToCounter);
  assert.equal(runs.starts.length, 1);
  const x = reconcileIds(hashes, first.ids, now, first.next);
  assert.equal(x.kept, n - 1);
  assert.equal(IdRuns.fromIds(x.ids, idToCounter).starts.length, 3);
  assert.equal(x.ids[250_000], idFromCounter(n));
});
