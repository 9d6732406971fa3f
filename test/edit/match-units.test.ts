// The helpers behind planEdit: text views, folding, unescaping, edit
// distance, window scans, indentation relations, and the rebuilding of
// new_string (carrying the file's characters, three-way line merges).
import { test } from "node:test";
import assert from "node:assert/strict";
import { foldWithMap, normalizeEol, similarityKey, splitLine, unescapeOnce, viewOf } from "../../src/edit/normalize.ts";
import { closestWindow, levenshtein, lineStats, windowsAtLeast } from "../../src/edit/similarity.ts";
import { indentWidth, reindent, relateIndentation } from "../../src/edit/indentShift.ts";
import { mergeLine, rebuildLines } from "../../src/edit/replacementText.ts";

test("viewOf: CRLF and BOM are set aside, offsets map back to the original", () => {
  const text = "\uFEFFab\r\ncd\nef\r\n";
  const v = viewOf(text);
  assert.equal(v.norm, "ab\ncd\nef\n");
  assert.deepEqual(v.lines, ["ab", "cd", "ef", ""]);
  assert.equal(v.realLineCount, 3);
  assert.equal(v.eol, "\r\n");
  // "cd" starts at norm 3 → original 1 (BOM) + 3 + 1 (one CR before it).
  assert.equal(v.toOriginal(3), 5);
  assert.equal(text.slice(v.toOriginal(3), v.toOriginal(5)), "cd");
  // The end of "ab" (before its line ending) lands before the CR.
  assert.equal(v.toOriginal(2), 3);
  assert.equal(v.toOriginal(v.norm.length), text.length);
  assert.equal(v.lineAt(4), 1);
  assert.equal(viewOf("a\nb").realLineCount, 2);
});

test("normalizeEol and splitLine", () => {
  assert.equal(normalizeEol("a\r\nb\rc\n"), "a\nb\rc\n");
  assert.deepEqual(splitLine("\t  x = 1 \t"), { indent: "\t  ", content: "x = 1", trailing: " \t" });
  assert.deepEqual(splitLine("   "), { indent: "   ", content: "", trailing: "" });
});

test("foldWithMap: typographic characters to ASCII, with offsets back (… expands, zero-width vanishes)", () => {
  const f = foldWithMap("“a”\u2014b\u2026c\u200Bd\u00A0e");
  assert.equal(f.text, '"a"-b...cd e');
  assert.equal(f.map[f.text.indexOf("c")], 6);
  assert.equal(f.map[f.text.indexOf("d")], 8);
  assert.equal(f.map[f.text.length], 11);
  assert.equal(f.map[5], f.map[6]); // the three dots of one ellipsis
});

test("unescapeOnce: one level of escaping undone, unknown escapes kept", () => {
  assert.equal(unescapeOnce("a\\nb\\tc\\\"d\\'e\\\\f\\dg"), "a\nb\tc\"d'e\\f\\dg");
  assert.equal(unescapeOnce('"a\\\\nb"'), '"a\\nb"');
  assert.equal(unescapeOnce("x\\r\\ny"), "x\ny");
  assert.equal(unescapeOnce("plain"), "plain");
});

test("similarityKey: folded, trimmed, inner blanks collapsed", () => {
  assert.equal(similarityKey("   x  =\t“y”  "), 'x = "y"');
});

function naive(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length][b.length];
}

test("levenshtein: equals the textbook distance, and reports max+1 beyond the band", () => {
  let seed = 7;
  const rand = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 8) % n);
  for (let t = 0; t < 300; t++) {
    const a = Array.from({ length: rand(12) }, () => "abc"[rand(3)]).join("");
    const b = Array.from({ length: rand(12) }, () => "abc"[rand(3)]).join("");
    const d = naive(a, b);
    assert.equal(levenshtein(a, b), d, `${a} / ${b}`);
    const max = rand(6);
    assert.equal(levenshtein(a, b, max), d <= max ? d : max + 1, `${a} / ${b} max ${max}`);
  }
});

test("windowsAtLeast: exact scores of every window above the floor, positional per line", () => {
  const file = lineStats(["alpha beta", "gamma delta", "epsilon", "alpha beta", "gamma delte", "zeta"]);
  const old = lineStats(["alpha beta", "gamma delta"]);
  const w = windowsAtLeast(file, 6, old, 0.9);
  assert.deepEqual(
    w.map((x) => x.start),
    [0, 3],
  );
  assert.equal(w[0].similarity, 1);
  assert.equal(w[1].similarity, 1 - 1 / 22);
});

test("closestWindow: finds the most similar region even far below the threshold", () => {
  const keys = Array.from({ length: 200 }, (_, i) => `line number ${i} of the file`);
  const file = lineStats(keys);
  const old = lineStats(["line number 120 of the flie", "something else entirely", "line number 122 of the file"]);
  const best = closestWindow(file, 200, old)!;
  assert.equal(best.start, 120);
  assert.ok(best.similarity > 0.5 && best.similarity < 0.9);
  assert.equal(closestWindow(file, 2, old), undefined);
});

test("relateIndentation: identity, uniform (with tab width), irregular", () => {
  assert.equal(relateIndentation([["  ", "  "]]).kind, "identity");
  const u = relateIndentation([
    ["", "    "],
    ["    ", "        "],
  ]);
  assert.deepEqual([u.kind, u.delta], ["uniform", 4]);
  const t = relateIndentation([
    ["  ", "\t"],
    ["    ", "\t\t"],
  ]);
  assert.deepEqual([t.kind, t.tabWidth, t.delta, t.useTabs], ["uniform", 2, 0, true]);
  assert.equal(
    relateIndentation([
      ["", "    "],
      ["    ", "    "],
    ]).kind,
    "irregular",
  );
  assert.equal(indentWidth("\t  ", 4), 6);
  assert.equal(indentWidth("  \t", 4), 4);
});

test("reindent: uniform shifts render in the file's style; irregular maps measure from the nearest known depth", () => {
  const u = relateIndentation([
    ["", "\t"],
    ["    ", "\t\t"],
  ]);
  assert.equal(reindent("        ", u), "\t\t\t");
  assert.equal(reindent("  ", u), "\t  ");
  const irr = relateIndentation([
    ["", "    "],
    ["        ", "        "],
  ]);
  assert.equal(reindent("", irr), "    ");
  assert.equal(reindent("            ", irr), "            ");
  assert.equal(reindent("    ", irr), "        ", "4 columns above the known depth 0 → 4 + 4");
  const bad = relateIndentation([
    ["", "    "],
    ["", "        "],
  ]);
  assert.equal(reindent("", bad), null);
});

test("mergeLine (ours): the file's characters in stretches new_string kept, never in rewritten lines", () => {
  assert.equal(mergeLine('say("hi", 1)', "say(\u201Chi\u201D, 1)", 'say("hi", 2)', "ours"), "say(\u201Chi\u201D, 2)");
  assert.equal(
    mergeLine('say("hi", 1)', "say(\u201Chi\u201D, 1)", 'completely "different"', "ours"),
    'completely "different"',
  );
  // An insertion next to a character the file spells differently keeps what the caller wrote there.
  assert.equal(mergeLine("break-here", "break\u2014here", "break--here", "ours"), "break--here");
  assert.equal(mergeLine('"hello"', "\u201Chello\u201D", '"hello world"', "ours"), "\u201Chello world\u201D");
  // A doubled escape in the copy, new_string written correctly or doubled too.
  assert.equal(mergeLine("s = 'a\\\\n'", "s = 'a\\n'", "s = 'a\\n'", "ours"), "s = 'a\\n'");
  assert.equal(mergeLine("s = 'a\\\\n'", "s = 'a\\n'", "s = 'b\\\\n'", "ours"), "s = 'b\\n'");
});

test("mergeLine: the model's change applied to the file's line, refused when the changes touch", () => {
  assert.equal(mergeLine("foo(a, b)", "x = foo(a, b)", "foo(a, c)"), "x = foo(a, c)");
  assert.equal(mergeLine("retrun value + 1", "return value + 1", "retrun value + 2"), "return value + 2");
  assert.equal(mergeLine("retrun value", "return value", "retrn value"), null);
  assert.equal(mergeLine("ab", "aXb", "aYb"), null, "two insertions at the same place");
  // new_string repeating the file's true text where the copy misremembered it is no conflict.
  assert.equal(mergeLine("total = compute(b)", "total = compute(a)", "total = compute(a)"), "total = compute(a)");
  assert.equal(mergeLine("foo(b) + x", "foo(a) + x", "foo(a) + y"), "foo(a) + y");
});

test("rebuildLines: unchanged lines from the file, changed ones adapted, deletions honoured", () => {
  const rel = relateIndentation([
    ["", "    "],
    ["  ", "      "],
  ]);
  const r = rebuildLines({
    oldLines: ["if x:", "  a() ", "  b()"],
    fileLines: ["    if x:", "      a()", "      b()\t"],
    newLines: ["if x:", "  a() ", "  c()", "  d()"],
    relation: rel,
    policy: "ours",
  });
  assert.ok(r.ok);
  // The changed line is the caller's, without the file's trailing tab (issue 10).
  assert.deepEqual(r.lines, ["    if x:", "      a()", "      c()", "      d()"]);
  const gone = rebuildLines({
    oldLines: ["a", "b"],
    fileLines: ["a ", "b "],
    newLines: ["b"],
    relation: rel,
    policy: "ours",
  });
  assert.ok(gone.ok);
  assert.deepEqual(gone.lines, ["b "]);
});
