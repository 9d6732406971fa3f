// Pruning the checkpoint store (Checkpoints.prune): checkpoints older than the
// age limit, beyond the count, and (oldest first) while the store is over its
// size go, with the objects only they held; the newest few and the protected
// ones (a session's rewind points) are never pruned and still restore byte for
// byte. A real shadow git store in a temp cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { Checkpoints } from "../../src/workspace/checkpoints.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { seededRandom, tempTree } from "../helpers.ts";

const DAY = 86_400_000;

/** Twelve checkpoints of a tree whose files change each time, the i-th taken (11.5 - i) days ago. */
function store12() {
  const root = tempTree({ "keep.txt": "same\n" });
  const env = { ...process.env, XDG_CACHE_HOME: tempTree({}, "rt-cache-"), RT_ROOT: undefined };
  const ws = createWorkspace({ root, env });
  const store = Checkpoints.open(root, env);
  const rand = seededRandom(7);
  const trees: string[] = [];
  const contents: string[] = [];
  const now = Date.now();
  for (let i = 0; i < 12; i++) {
    const text = `version ${i} ${crypto.randomBytes(4).toString("hex")} ${rand.int(1_000_000)}\n`.repeat(50);
    fs.writeFileSync(path.join(root, "a.txt"), text);
    contents.push(text);
    trees.push(store.snapshot());
    const at = new Date(now - (12 - i) * DAY + DAY / 2);
    fs.utimesSync(path.join(store.dir, "refs", "rt", trees[i]), at, at);
  }
  return { root, ws, store, trees, contents, now };
}

test("prune: by age, then by count, then by size; the newest and the protected stay, and still restore; the rest is gone from the store", () => {
  const { root, ws, store, trees, contents, now } = store12();
  assert.equal(new Set(trees).size, 12);
  assert.deepEqual(
    store.list().map((c) => c.tree),
    [...trees].reverse(),
    "newest first",
  );
  const protect = new Set([trees[1]]);
  const base = { maxCount: 100, maxBytes: Number.MAX_SAFE_INTEGER, keepRecent: 2, graceS: 0 };

  // Older than 5 days: t0..t6, but t1 is protected.
  const byAge = store.prune(protect, { ...base, maxAgeDays: 5 }, now);
  assert.deepEqual(new Set(byAge.forgotten), new Set([0, 2, 3, 4, 5, 6].map((i) => trees[i])));
  for (const i of [0, 2, 3, 4, 5, 6]) assert.equal(store.has(trees[i]), false, `t${i} pruned from the store`);
  for (const i of [1, 7, 8, 9, 10, 11]) assert.equal(store.has(trees[i]), true, `t${i} kept`);

  // At most 3: the oldest unprotected go (t7, t8, t9); t1 stays though it is the oldest.
  const byCount = store.prune(protect, { ...base, maxAgeDays: 1000, maxCount: 3, keepRecent: 1 }, now);
  assert.deepEqual(new Set(byCount.forgotten), new Set([7, 8, 9].map((i) => trees[i])));
  assert.deepEqual(new Set(store.list().map((c) => c.tree)), new Set([1, 10, 11].map((i) => trees[i])));

  // Over the size (1 byte): everything that may go goes; the newest and the protected stay.
  const bySize = store.prune(protect, { ...base, maxAgeDays: 1000, maxBytes: 1, keepRecent: 1 }, now);
  assert.deepEqual(bySize.forgotten, [trees[10]]);
  assert.deepEqual(new Set(store.list().map((c) => c.tree)), new Set([trees[1], trees[11]]));

  // A protected checkpoint still restores byte for byte.
  const current = store.snapshot();
  const r = store.restore(ws.writer, current, trees[1]);
  assert.deepEqual(r.written, ["a.txt"]);
  assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), contents[1]);
});

test("prune: within the limits nothing goes; objects no checkpoint holds stay through the grace period", () => {
  const { store, trees, now } = store12();
  assert.deepEqual(store.prune(new Set(), { maxAgeDays: 30 }, now).forgotten, []);
  assert.equal(store.list().length, 12);
  // Forgotten by count, but their objects are younger than the grace period: still readable.
  const r = store.prune(new Set(), { maxCount: 10, keepRecent: 0, graceS: 3600 }, now);
  assert.deepEqual(new Set(r.forgotten), new Set([trees[0], trees[1]]));
  assert.equal(store.has(trees[0]), true, "objects within the grace period are kept");
  assert.equal(store.list().length, 10);
});
