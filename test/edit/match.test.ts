// planEdit: each tier reached, each tier not reached when an earlier one
// matches, ambiguity at every tier, and the error outcomes.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type MatchFailure,
  type MatchSuccess,
  applyReplacements,
  planEdit,
  type PlanOptions,
} from "../../src/edit/match.ts";

function ok(text: string, oldString: string, newString: string, opts?: PlanOptions): MatchSuccess & { result: string } {
  const r = planEdit(text, oldString, newString, opts);
  if (!r.ok) assert.fail(`expected a match, got ${r.reason}: ${r.message}`);
  return { ...r, result: applyReplacements(text, r.replacements) };
}

function fail(text: string, oldString: string, newString: string, opts?: PlanOptions): MatchFailure {
  const r = planEdit(text, oldString, newString, opts);
  if (r.ok)
    assert.fail(`expected a failure, got tier ${r.tier}: ${JSON.stringify(applyReplacements(text, r.replacements))}`);
  return r;
}

const PY = [
  "class Shop:",
  "    def total(self, items):",
  "        s = 0  ",
  "        for it in items:",
  "            s += it.price",
  "        return s",
  "",
  "    def empty(self):",
  "        return []",
  "",
].join("\n");

// ------------------------------------------------------------------ exact

test("exact: a fragment inside a line is replaced in place", () => {
  const r = ok(PY, "it.price", "it.price * it.qty");
  assert.equal(r.tier, "exact");
  assert.equal(r.note, undefined);
  assert.deepEqual(r.lines, [5]);
  assert.equal(r.replacements.length, 1);
  assert.equal(PY.slice(r.replacements[0].start, r.replacements[0].end), "it.price");
  assert.equal(r.result, PY.replace("it.price", "it.price * it.qty"));
});

test("exact: whole lines, with old_string's final newline", () => {
  const r = ok(PY, "    def empty(self):\n        return []\n", "    def empty(self):\n        return ()\n");
  assert.equal(r.tier, "exact");
  assert.deepEqual([r.replacements[0].startLine, r.replacements[0].endLine], [8, 9]);
  assert.equal(r.result, PY.replace("return []", "return ()"));
});

test("exact: several occurrences is ambiguous, every line listed", () => {
  const text = "a = 1\nb = 2\na = 1\nc = 3\na = 1\n";
  const r = fail(text, "a = 1", "a = 9");
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "exact");
  assert.deepEqual(r.lines, [1, 3, 5]);
  assert.match(r.message, /3 places: lines 1, 3, 5/);
  assert.match(r.message, /replace_all/);
});

test("exact: overlapping occurrences count as several", () => {
  const r = fail("xx\nxx\nxx\n", "xx\nxx", "y");
  assert.equal(r.reason, "ambiguous");
});

test("exact is chosen even when a looser tier would find other places", () => {
  const text = "def f():\n    return 1\n\ndef g():\n    return 1   \n";
  const r = ok(text, "    return 1\n\n", "    return 2\n\n");
  assert.equal(r.tier, "exact");
  assert.equal(r.result, "def f():\n    return 2\n\ndef g():\n    return 1   \n");
});

// ------------------------------------------------------------------ trailing whitespace

test("trailing-whitespace: matches whole lines and keeps the file's trailing blanks on unchanged lines", () => {
  const r = ok(PY, "        s = 0\n        for it in items:", "        s = 0\n        for it in reversed(items):");
  assert.equal(r.tier, "trailing-whitespace");
  assert.match(r.note!, /trailing whitespace/);
  assert.deepEqual(r.lines, [3]);
  assert.equal(r.result, PY.replace("for it in items:", "for it in reversed(items):"));
  assert.ok(r.result.includes("        s = 0  \n"), "the unchanged line keeps its trailing blanks");
});

test("trailing-whitespace: a changed line is written as the caller wrote it, without the file's trailing blanks (issue 10)", () => {
  const r = ok(PY, "        s = 0\n        for it in items:", "        s = 1\n        for it in items:");
  assert.equal(r.result, PY.replace("s = 0  ", "s = 1"));
});

test("trailing-whitespace: stray trailing blanks of the caller's copy are not written where the file has none", () => {
  const text = "a = 1\nb = 2\n";
  assert.equal(ok(text, "a = 1 \nb = 2", "a = 9 \nb = 2").result, "a = 9\nb = 2\n");
});

test("trailing-whitespace: several places is ambiguous", () => {
  const text = "if a:\n    go()  \nif b:\n    go() \n";
  const r = fail(text, "    go()\n", "    stop()\n");
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "trailing-whitespace");
  assert.deepEqual(r.lines, [2, 4]);
});

test("trailing-whitespace is not reached when old_string is there exactly", () => {
  const text = "x = 1 \ny = 2\n\nx = 1\ny = 2\n";
  const r = ok(text, "x = 1 \ny = 2", "x = 5 \ny = 2");
  assert.equal(r.tier, "exact");
  assert.equal(r.result, "x = 5 \ny = 2\n\nx = 1\ny = 2\n");
});

// ------------------------------------------------------------------ trimmed lines

test("trimmed-lines: irregular indentation (first line unindented, a stray trailing blank)", () => {
  const old = "for it in items:\n            s += it.price \n        return s";
  const neu = "for it in items:\n            s += it.price\n            n += 1\n        return s";
  const r = ok(PY, old, neu);
  assert.equal(r.tier, "trimmed-lines");
  assert.deepEqual(r.lines, [4]);
  assert.equal(r.result, PY.replace("            s += it.price\n", "            s += it.price\n            n += 1\n"));
});

test("trimmed-lines: one line off by a space maps back", () => {
  const text = "def f(a):\n    if a:\n        return 1\n    return 2\n";
  const old = "    if a:\n         return 1\n    return 2";
  const neu = "    if a:\n         return 10\n    return 2";
  const r = ok(text, old, neu);
  assert.equal(r.tier, "trimmed-lines");
  assert.equal(r.result, "def f(a):\n    if a:\n        return 10\n    return 2\n");
});

test("trimmed-lines: several places is ambiguous", () => {
  const text = "def a():\n    x = 1\n    y = 2\ndef b():\n  x = 1\n    y = 2\n";
  const r = fail(text, "x = 1\n  y = 2", "x = 3\n  y = 2");
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "trimmed-lines");
  assert.deepEqual(r.lines, [2, 5]);
});

test("trimmed-lines is not reached when trailing-whitespace matches", () => {
  // Line 2-3 match with trailing blanks ignored; lines 5-6 only with indentation ignored too.
  const text = "def a():\n    x = 1  \n    y = 2\ndef b():\n        x = 1\n  y = 2\n";
  const r = ok(text, "    x = 1\n    y = 2", "    x = 7\n    y = 2");
  assert.equal(r.tier, "trailing-whitespace");
  assert.equal(r.result, "def a():\n    x = 7\n    y = 2\ndef b():\n        x = 1\n  y = 2\n");
});

test("trimmed-lines: an indentation that stood for two file indentations cannot place a new line", () => {
  const text = "class A:\n    def f(self):\n        pass\n    x = 1  \n";
  // The model flattened everything: "" stands for 4 and 8 spaces, so an added line at "" is unplaceable.
  const r = fail(text, "def f(self):\npass\nx = 1", "def f(self):\npass\nextra()\nx = 1");
  assert.equal(r.reason, "indent-unclear");
  assert.equal(r.tier, "trimmed-lines");
  assert.match(r.message, /line 3 of new_string/);
  assert.match(r.message, /exact indentation/);
});

test("trimmed-lines: a flattened copy can still change a line in place (local evidence)", () => {
  const text = "class A:\n    def f(self):\n        pass\n    x = 1  \n";
  const r = ok(text, "def f(self):\npass\nx = 1", "def f(self):\nreturn None\nx = 1");
  assert.equal(r.result, "class A:\n    def f(self):\n        return None\n    x = 1  \n");
});

// ------------------------------------------------------------------ unicode folded

test("unicode-folded: the model's curly quotes match the file's straight ones; what new_string adds is not folded", () => {
  const text = 'msg = "hello"\nprint(msg)\n';
  const r = ok(text, "msg = \u201Chello\u201D", "msg = \u201Cbye\u201D\n# it\u2019s \u201Cfine\u201D \u2014 really");
  assert.equal(r.tier, "unicode-folded");
  assert.match(r.note!, /typographic/);
  // The quotes new_string kept from old_string are the file's; the comment it added stays as written.
  assert.equal(r.result, 'msg = "bye"\n# it\u2019s \u201Cfine\u201D \u2014 really\nprint(msg)\n');
});

test("unicode-folded: where new_string leaves the line as it was, the file's characters stay", () => {
  const text = 'log("it\u2019s done \u2014 really")\nx = 1\n';
  const r = ok(text, 'log("it\'s done - really")\nx = 1', 'log("it\'s done - really")\nx = 2');
  assert.equal(r.tier, "unicode-folded");
  assert.equal(r.result, 'log("it\u2019s done \u2014 really")\nx = 2\n');
});

test("unicode-folded: a changed line keeps the file's characters in the stretches it did not change", () => {
  const text = "say(\u201Chello world\u201D, loud=True)\n";
  const r = ok(text, 'say("hello world", loud=True)', 'say("hello world", loud=False)');
  assert.equal(r.result, "say(\u201Chello world\u201D, loud=False)\n");
});

test("unicode-folded: ellipsis and non-breaking spaces", () => {
  const text = "# wait\u2026\nx\u00A0= 1\n";
  assert.equal(ok(text, "# wait...", "# done").result, "# done\nx\u00A0= 1\n");
  assert.equal(ok(text, "x = 1", "x = 2").tier, "unicode-folded");
});

test("unicode-folded: several places is ambiguous", () => {
  const text = "a = \u201Cx\u201D\nb = 1\na = \u201Cx\u201D\n";
  const r = fail(text, 'a = "x"', 'a = "y"');
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "unicode-folded");
  assert.deepEqual(r.lines, [1, 3]);
});

test("unicode-folded is not reached when trimmed-lines matches", () => {
  // Lines 2-3 match only with indentation ignored (irregularly); line 5-6 only with quotes folded.
  const text = 'def a():\n  s = "x"\n    t = 1\ndef b():\n    s = \u201Cx\u201D\n    t = 1\n';
  const r = ok(text, '    s = "x"\n    t = 1', '    s = "y"\n    t = 1');
  assert.equal(r.tier, "trimmed-lines");
  assert.equal(r.result, 'def a():\n  s = "y"\n    t = 1\ndef b():\n    s = \u201Cx\u201D\n    t = 1\n');
});

// ------------------------------------------------------------------ unescaped

test('unescaped: literal \\n and \\" in old_string and new_string are undone', () => {
  const text = 'def f():\n    return "a"\n';
  const r = ok(text, 'def f():\\n    return \\"a\\"', 'def f():\\n    return \\"b\\"');
  assert.equal(r.tier, "unescaped");
  assert.match(r.note!, /escape/);
  assert.equal(r.result, 'def f():\n    return "b"\n');
});

test("unescaped: doubled backslashes inside a string literal", () => {
  const text = 'PATTERN = "a\\nb"\n';
  const r = ok(text, 'PATTERN = "a\\\\nb"', 'PATTERN = "a\\\\nc"');
  assert.equal(r.tier, "unescaped");
  assert.equal(r.result, 'PATTERN = "a\\nc"\n');
});

test("unescaped: several places is ambiguous", () => {
  const text = "x = 1\ny = 2\n\nx = 1\ny = 2\n";
  const r = fail(text, "x = 1\\ny = 2", "x = 1\\ny = 3");
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "unescaped");
  assert.deepEqual(r.lines, [1, 4]);
});

test("unescaped is not reached when unicode-folded matches", () => {
  // Line 1 holds old_string with its quotes curled; lines 3-4 hold it with "\n" as a real newline.
  const text = 'x = \u201Ca\\nb\u201D\n\nx = "a\nb"\n';
  const r = ok(text, 'x = "a\\nb"', 'x = "a\\nc"');
  assert.equal(r.tier, "unicode-folded");
  assert.equal(r.result, 'x = \u201Ca\\nc\u201D\n\nx = "a\nb"\n');
});

// ------------------------------------------------------------------ indent shifted

test("indent-shifted: a block quoted dedented is re-indented by the same shift", () => {
  const old = "def total(self, items):\n    s = 0\n    for it in items:";
  const neu = "def total(self, items):\n    s = 0\n    count = 0\n    for it in items:";
  const r = ok(PY, old, neu);
  assert.equal(r.tier, "indent-shifted");
  assert.match(r.note!, /\+4 columns/);
  assert.equal(r.result, PY.replace("        s = 0  \n", "        s = 0  \n        count = 0\n"));
});

test("indent-shifted: several places is ambiguous", () => {
  // Found only by folding quotes and ignoring indentation, at two places.
  const text = "if a:\n    s = \u201Cx\u201D\n    t = 1\nif b:\n        s = \u201Cx\u201D\n        t = 1\n";
  const r = fail(text, 's = "x"\nt = 1', 's = "y"\nt = 1');
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "indent-shifted");
  assert.deepEqual(r.lines, [2, 5]);
});

test("several uniform shifts of plain text are ambiguous already when whitespace is ignored", () => {
  const text = "if a:\n    x = 1\n    y = 2\nif b:\n        x = 1\n        y = 2\n";
  const r = fail(text, "x = 1\ny = 2", "x = 1\ny = 3");
  assert.equal(r.reason, "ambiguous");
  assert.deepEqual(r.lines, [2, 5]);
});

test("indent-shifted is not reached when unescaped matches", () => {
  // Lines 1-2: old_string once "\\n" is undone. Lines 4-5: old_string's lines shifted, with curly quotes.
  const text = 'f("a")\ng()\n\n    f(\u201Ca\u201D)\\ng()\n';
  const r = ok(text, 'f(\\"a\\")\\ng()', 'f(\\"b\\")\\ng()');
  assert.equal(r.tier, "unescaped");
  assert.equal(r.result, 'f("b")\ng()\n\n    f(\u201Ca\u201D)\\ng()\n');
});

test("a uniform shift at one place and a folded match at another is ambiguous", () => {
  // Lines 1-2 are old_string indented by 4; lines 4-5 are old_string with curly quotes.
  const text = '    a = "x"\n    b = 1\n\na = \u201Cx\u201D\nb = 1\n';
  const r = fail(text, 'a = "x"\nb = 1', 'a = "y"\nb = 1');
  assert.equal(r.reason, "ambiguous");
  assert.deepEqual(r.lines, [1, 4]);
  assert.match(r.message, /indentation shifted/);
});

// ------------------------------------------------------------------ similar

const LONG = [
  "def configure(parser):",
  "    parser.add_argument('--input', help='the input file')",
  "    parser.add_argument('--output', help='the output file')",
  "    parser.add_argument('--verbose', action='store_true')",
  "    parser.add_argument('--limit', type=int, default=10)",
  "    return parser",
  "",
  "def main():",
  "    pass",
  "",
].join("\n");

test("similar: a one-character slip in a long old_string is found, with its similarity", () => {
  const old = LONG.split("\n").slice(0, 6).join("\n").replace("output file", "outptu file");
  const neu = old.replace("default=10", "default=20");
  const r = ok(LONG, old, neu);
  assert.equal(r.tier, "similar");
  assert.ok(r.similarity! >= 0.95 && r.similarity! < 1, `similarity ${r.similarity}`);
  assert.match(r.note!, /similarity 0\.9\d/);
  // The line the model misquoted but did not change is kept as the file has it.
  assert.equal(r.result, LONG.replace("default=10", "default=20"));
});

test("similar: a change on the misquoted line itself is merged when the two do not touch", () => {
  const old = LONG.split("\n").slice(0, 6).join("\n").replace("the input file", "the inptu file");
  const neu = old.replace("'--input'", "'--source'");
  const r = ok(LONG, old, neu);
  assert.equal(r.tier, "similar");
  assert.equal(r.result, LONG.replace("'--input'", "'--source'"));
});

test("similar: a change that touches the misquoted text is a conflict", () => {
  const old = LONG.split("\n").slice(0, 6).join("\n").replace("the input file", "the inptu file");
  const neu = old.replace("the inptu file", "the source file");
  const r = fail(LONG, old, neu);
  assert.equal(r.reason, "conflict");
  assert.match(r.message, /Re-read the file/);
});

test("similar: near-identical lines that differ in a number are another place, not a slip (a table row)", () => {
  const table =
    Array.from(
      { length: 10 },
      (_, d) => `    '${d}'        #  0x${(0xf0 + d).toString(16).toUpperCase()} -> DIGIT ${d}`,
    ).join("\n") + "\n";
  // The model remembers the rows with other codes (0x36 for 0xF6): no such rows exist.
  const old = [6, 7, 8, 9]
    .map((d) => `    '${d}'        #  0x${(0x30 + d).toString(16).toUpperCase()} -> DIGIT ${d}`)
    .join("\n");
  const r = fail(table, old, old + " (last)");
  assert.equal(r.reason, "not-found");
  assert.match(r.message, /Re-read the file/);
});

test("similar: two places about equally similar is ambiguous, with their scores", () => {
  const block = LONG.split("\n").slice(1, 6);
  const text = ["def a(parser):", ...block, "", "def b(parser):", ...block.map((l) => l.replace("10", "11")), ""].join(
    "\n",
  );
  const old = ["def c(parser):", ...block].join("\n");
  const r = fail(text, old, old + "\n# x");
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "similar");
  assert.deepEqual(r.lines, [1, 8]);
  assert.match(r.message, /lines 1 \(0\.9\d\), 8 \(0\.9\d\)/);
  assert.ok(!r.message.includes("1.00"), "a near miss is never shown as 1.00");
});

test("similar: a tie between overlapping windows (unclear extent) is ambiguous", () => {
  const line = "x = compute_value(1, 2, 3)";
  const text = [line, line, line, line, "end()", ""].join("\n");
  const r = fail(text, [line, line, line.replace("value", "valeu")].join("\n"), "y");
  assert.equal(r.reason, "ambiguous");
  assert.equal(r.tier, "similar");
});

test("similar is not reached when indent-shifted matches", () => {
  const block = LONG.split("\n").slice(0, 6);
  // Lines 1-6: the block indented by 4. Lines 8-13: the block with a typo (similarity would see two places).
  const text = [
    ...block.map((l) => (l ? "    " + l : l)),
    "",
    ...block.map((l) => l.replace("output file", "outptu file")),
    "",
  ].join("\n");
  const old = block.join("\n");
  const r = ok(text, old, old.replace("default=10", "default=5"));
  assert.equal(r.tier, "indent-shifted");
  assert.deepEqual(r.lines, [1]);
  assert.equal(r.result, text.replace("default=10", "default=5"));
});

test("similar: below 0.95 is not accepted", () => {
  const old = "def configure(parser):\n    parser.add_argument('--inptu', hlep='the inptu flie')";
  const r = fail(LONG, old, "x");
  assert.equal(r.reason, "not-found");
});

// ------------------------------------------------------------------ not found, already applied, empty, unchanged

test("not-found: the error shows the closest region, its similarity, line numbers and first differing line", () => {
  const old = "def main():\n    run()";
  const r = fail(LONG, old, "def main():\n    run(fast=True)");
  assert.equal(r.reason, "not-found");
  assert.deepEqual(r.closest && [r.closest.startLine, r.closest.endLine], [8, 9]);
  assert.ok(r.closest!.similarity > 0.5 && r.closest!.similarity < 0.95);
  assert.deepEqual(r.closest!.firstDifference, { line: 9, fileText: "    pass", oldText: "    run()" });
  assert.match(r.message, /closest region is lines 8-9 \(similarity 0\.\d\d\)/);
  assert.match(r.message, /first line that differs is line 9/);
  assert.match(r.message, /file: {7}····pass/);
  assert.match(r.message, /old_string: ····run\(\)/);
  assert.match(r.message, /Re-read the file around line 8/);
});

test("not-found: old_string longer than the file", () => {
  const r = fail("a\nb\n", "a\nb\nc\nd", "x");
  assert.equal(r.reason, "not-found");
  assert.equal(r.closest, undefined);
  assert.match(r.message, /old_string has 4 lines and the file only 2/);
});

test("already-applied: old_string is gone and new_string is there", () => {
  const applied = LONG.replace("default=10", "default=20");
  const old =
    "    parser.add_argument('--verbose', action='store_true')\n    parser.add_argument('--limit', type=int, default=10)";
  const r = fail(applied, old, old.replace("default=10", "default=20"));
  assert.equal(r.reason, "already-applied");
  assert.deepEqual(r.lines, [4]);
  assert.match(r.message, /already applied/);
  assert.match(r.message, /Nothing was changed/);
});

test("already-applied: new_string extends old_string and is already there around it", () => {
  const text = "import os\nimport sys\n\nprint(1)\n";
  const r = fail(text, "import os\n", "import os\nimport sys\n");
  assert.equal(r.reason, "already-applied");
  assert.deepEqual(r.lines, [1]);
});

test("already-applied: a tolerant match whose replacement changes nothing", () => {
  const text = "x = 1  \ny = 2\n";
  const r = fail(text, "x = 1\ny = 3", "x = 1\ny = 2");
  assert.equal(r.reason, "already-applied");
});

test("a deletion whose old_string is not there is not taken for an applied edit", () => {
  // new_string is old_string minus a line: it is in the file whether or not the deletion happened.
  const old =
    "    parser.add_argument('--inptu', help='the input file')\n    parser.add_argument('--output', help='the output file')";
  const r = fail(LONG, old, "    parser.add_argument('--output', help='the output file')");
  assert.equal(r.reason, "not-found");
});

test("similar: one or two lines are never matched by similarity alone", () => {
  const text = 'case "small": {\n    const adj = issue.inclusive ? ">=" : ">";\n}\n';
  const r = fail(
    text,
    'case "small": {\n    const adj = issue.inclusive ? "\u2265" : ">";',
    'case "small": {\n    const adj2 = 1;',
  );
  assert.equal(r.reason, "not-found");
  assert.ok(r.closest!.similarity >= 0.95, "similar enough, but too short to be evidence");
});

test("a short new_string found elsewhere is not taken for an applied edit", () => {
  const r = fail(LONG, "    return result", "    pass");
  assert.equal(r.reason, "not-found");
});

test("empty old_string is an error, except on an empty file", () => {
  const r = fail("x = 1\n", "", "y");
  assert.equal(r.reason, "empty-old");
  assert.match(r.message, /write/);
  const e = ok("", "", "hello\n");
  assert.equal(e.result, "hello\n");
});

test("old_string equal to new_string is an error", () => {
  assert.equal(fail(PY, "return s", "return s").reason, "unchanged");
});

// ------------------------------------------------------------------ replace_all

test("replace_all: every exact occurrence, left to right", () => {
  const text = "a = 1\nb = a\nc = a + a\n";
  const r = ok(text, "a", "z", { replaceAll: true });
  assert.equal(r.tier, "exact");
  assert.deepEqual(r.lines, [1, 2, 3, 3]);
  assert.equal(r.result, "z = 1\nb = z\nc = z + z\n");
});

test("replace_all: every whole-line match of a tolerant tier, each re-indented on its own", () => {
  const text = "if a:\n    go()\nif b:\n        go()\n";
  const r = ok(text, "go()", "stop()", { replaceAll: true });
  assert.equal(r.tier, "exact");
  const r2 = ok("if a:\n    go()  \nif b:\n        go() \n", "go()\n", "stop()\n", { replaceAll: true });
  assert.equal(r2.result, "if a:\n    stop()\nif b:\n        stop()\n");
  const r3 = ok("x:\n    a()\n    b()\ny:\n        a()\n        b()\n", "a()\nb()", "a()\nc()", { replaceAll: true });
  assert.equal(r3.tier, "indent-shifted");
  assert.equal(r3.result, "x:\n    a()\n    c()\ny:\n        a()\n        c()\n");
});

test("replace_all with no occurrence is not-found", () => {
  assert.equal(fail("a\n", "zzz", "y", { replaceAll: true }).reason, "not-found");
});

// ------------------------------------------------------------------ fragments that could be whole lines elsewhere

test("a fragment match competing with a whole-line match elsewhere is ambiguous", () => {
  // "if (sizing) " (stray trailing blank) is a prefix of line 2, while lines 4-5 are the quoted lines.
  const text = "const a = getSizing(x);\nif (sizing) {\n}\nconst a = getSizing(x);\n    if (sizing)\n";
  const r = fail(text, "const a = getSizing(x);\nif (sizing) ", "const a = getSizing(x);\nif (sized) ");
  assert.equal(r.reason, "ambiguous");
  assert.deepEqual(r.lines, [1, 4]);
  assert.match(r.message, /part of line 1/);
});

test("a match ending with its newline, or starting after the indentation, is not a fragment", () => {
  // Lines 4-5 match old_string with indentation ignored; the exact match at lines 1-2 is whole lines
  // (it ends with a newline, starts after the indentation), so it is taken.
  const text = "    a = 1\n    b = 2\n\n  a = 1\n  b = 2\n";
  const r = ok(text, "a = 1\n    b = 2\n", "a = 1\n    b = 3\n");
  assert.equal(r.tier, "exact");
  assert.equal(r.result, "    a = 1\n    b = 3\n\n  a = 1\n  b = 2\n");
});
