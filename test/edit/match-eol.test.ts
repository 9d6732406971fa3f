// Line endings, BOM and the end of the file: offsets always point into the
// text as given, replacements carry the file's line ending, and untouched
// lines keep theirs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { replaceInText as applyEdit, planEdit } from "../../src/edit/match.ts";

function edit(text: string, oldString: string, newString: string, eol?: "\n" | "\r\n"): { tier: string; text: string } {
  const r = applyEdit(text, oldString, newString, { eol });
  if (!r.ok) assert.fail(`${r.reason}: ${r.message}`);
  return { tier: r.outcome.tier, text: r.text };
}

const CRLF = "a = 1\r\nb = 2\r\nc = 3\r\n";

test("CRLF file, LF old_string: exact match, offsets into the CRLF text, CRLF in the replacement", () => {
  const r = planEdit(CRLF, "a = 1\nb = 2", "a = 1\nb = 20\nb2 = 0");
  assert.ok(r.ok);
  assert.equal(r.tier, "exact");
  assert.deepEqual([r.replacements[0].start, r.replacements[0].end], [0, 12]);
  assert.equal(r.replacements[0].text, "a = 1\r\nb = 20\r\nb2 = 0");
  assert.equal(edit(CRLF, "a = 1\nb = 2", "a = 1\nb = 20\nb2 = 0").text, "a = 1\r\nb = 20\r\nb2 = 0\r\nc = 3\r\n");
});

test("CRLF file normalized by the caller: planned on LF text, replacement in LF", () => {
  const normalized = CRLF.replace(/\r\n/g, "\n");
  assert.equal(edit(normalized, "b = 2\n", "b = 3\n").text, "a = 1\nb = 3\nc = 3\n");
});

test("opts.eol decides the replacement's line ending", () => {
  assert.equal(edit("a\nb\nc\n", "a\nb", "x\ny", "\r\n").text, "x\r\ny\nc\n");
});

test("CRLF old_string and new_string on an LF file", () => {
  assert.equal(edit("a\nb\nc\n", "a\r\nb\r\n", "a\r\nB\r\n").text, "a\nB\nc\n");
});

test("mixed endings: lines outside the match keep their own ending", () => {
  const text = "one\r\ntwo\nthree\r\nfour\n";
  assert.equal(edit(text, "three", "THREE").text, "one\r\ntwo\nTHREE\r\nfour\n");
  assert.equal(edit(text, "two\nthree", "2\n3").text, "one\r\n2\n3\r\nfour\n");
});

test("CRLF file with a tolerant tier: trailing blanks and endings both survive", () => {
  const text = "if a:\r\n    go()  \r\n    stop()\r\n";
  assert.equal(
    edit(text, "    go()\n    stop()", "    go()\n    wait()").text,
    "if a:\r\n    go()  \r\n    wait()\r\n",
  );
});

test("a BOM is skipped for matching and kept in the file", () => {
  const text = "\uFEFFimport os\nimport sys\n";
  const r = planEdit(text, "import os\nimport sys", "import sys");
  assert.ok(r.ok);
  assert.equal(r.replacements[0].start, 1);
  assert.equal(edit(text, "import os\n", "").text, "\uFEFFimport sys\n");
});

test("old_string ending with a newline at a last line that has none: new_string's final newline is dropped too", () => {
  const text = "a = 1\n    b = 2";
  const r = edit(text, "b = 2\n", "b = 3\n");
  assert.equal(r.text, "a = 1\n    b = 3");
  const shifted = edit(text, "  b = 2\n", "  b = 3\n");
  assert.equal(shifted.tier, "indent-shifted");
  assert.equal(shifted.text, "a = 1\n    b = 3");
});

test("the empty phantom line after a final newline is never matched", () => {
  const r = planEdit("a\n", "a\n\n", "b\n\n");
  assert.equal(r.ok, false);
});

test("replacement line numbers: startLine and endLine of a whole-line match with its newline", () => {
  const r = planEdit("x\ny\nz\n", "y\nz\n", "Y\n");
  assert.ok(r.ok);
  assert.deepEqual([r.replacements[0].startLine, r.replacements[0].endLine], [2, 3]);
});
