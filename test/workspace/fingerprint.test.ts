// Content fingerprints and state keys: equal inputs agree, different inputs differ,
// on both sides of the size where the fingerprint switches to SHA-1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { hashBytes } from "../../src/workspace/fingerprint.ts";
import { StateStore } from "../../src/workspace/state.ts";

test("hashBytes: the same bytes (Buffer or string) give the same fingerprint; any one-byte change another", () => {
  for (const size of [0, 1, 100, 1024 * 1024 - 1, 1024 * 1024, 3 * 1024 * 1024]) {
    const bytes = Buffer.alloc(size, "a");
    assert.equal(hashBytes(bytes), hashBytes(Buffer.from(bytes)), `size ${size}`);
    assert.equal(hashBytes(bytes.toString("latin1")), hashBytes(bytes), `string of size ${size}`);
    if (size === 0) continue;
    const seen = new Set([hashBytes(bytes)]);
    for (const at of [0, size >> 1, size - 1]) {
      const changed = Buffer.from(bytes);
      changed[at] = 0x62;
      seen.add(hashBytes(changed));
    }
    assert.equal(seen.size, size === 1 ? 2 : 4, `size ${size}: every changed position gives a new fingerprint`);
    assert.notEqual(hashBytes(bytes), hashBytes(Buffer.concat([bytes, Buffer.from("a")])), "a longer file differs");
  }
});

test("hashBytes: no collisions among 100,000 similar short lines", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 100_000; i++) seen.add(hashBytes(`    return compute(${i}, x)\n`));
  assert.equal(seen.size, 100_000);
});

test("StateStore.keyFor: stable, filesystem-safe, distinct for distinct paths", () => {
  assert.equal(StateStore.keyFor("src/a.ts"), StateStore.keyFor("src/a.ts"));
  assert.match(StateStore.keyFor("dir/ünï cödé.py"), /^[0-9a-f]{16}$/);
  const keys = new Set<string>();
  for (let i = 0; i < 50_000; i++) keys.add(StateStore.keyFor(`src/module${i}/index.ts`));
  assert.equal(keys.size, 50_000);
});
