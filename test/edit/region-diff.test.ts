// regionDiff (the unified diff of an edit, computed on the changed region
// only) gives exactly jsdiff's createTwoFilesPatch on the whole texts, over
// generated edits of a real file: insertions, deletions, changes, several at
// once, at the start and the end, with and without final newlines.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createTwoFilesPatch } from "diff";
import { regionDiff } from "../../src/edit/regionDiff.ts";
import { soak } from "../helpers.ts";

// 500 generated edits in `npm test`, 2,000 in the soak run (the same seed: the first 500 are the same).
test("regionDiff equals createTwoFilesPatch on the whole texts (generated edits)", () => {
  let seed = 3;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const base = fs.readFileSync("src/edit/match.ts", "utf8");
  for (let k = 0, n = soak(500, 2000); k < n; k++) {
    let a = base.slice(0, rnd(base.length));
    if (rnd(2)) a += "\n";
    const bl = a.split("\n");
    for (let o = 0, ops = 1 + rnd(3); o < ops; o++) {
      const i = rnd(bl.length + 1);
      const kind = rnd(3);
      if (kind === 0) bl.splice(i, 0, `inserted ${k}`);
      else if (kind === 1) bl.splice(i, 1);
      else bl[i] = `${bl[i] ?? ""} changed`;
    }
    let b = bl.join("\n");
    if (rnd(5) === 0) b = b.replace(/\n$/, "");
    if (rnd(5) === 0) b += "\n";
    assert.equal(
      regionDiff("a/x", "b/x", a, b),
      createTwoFilesPatch("a/x", "b/x", a, b, undefined, undefined, { context: 3 }),
      `case ${k}`,
    );
  }
});
