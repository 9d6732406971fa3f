// Blanks inside a string literal are its content, never layout: the whitespace tiers
// (inner-whitespace, token-whitespace) may match a copy whose blanks differ, but what they
// write keeps every literal's blanks as the file has them, where the caller's change does not
// rewrite them. An invariant over generated files: code lines with one-line literals ("...",
// '...', r'...', `...`) and multi-line ones (Python docstrings, template literals), whose
// contents are lists with blanks around their commas; the model's copy drops or adds the
// blanks next to commas, or collapses runs of blanks, or joins the lines, everywhere (inside
// literals too), and renames one word (in code or inside a literal). Every literal of the
// intended result must appear in what is written, byte for byte.
//
// Mutation that makes this test fail: in src/edit/replacementText.ts, keepLiteralSpacing, make
// `const t = theirSpans ? literalGaps(...) : undefined` always undefined (the literals read from
// the caller's copy of each line, as before): lines inside a docstring or a template literal,
// and literals the copy spaced around a renamed word, are respaced as the copy wrote them
// (`More , text` becomes `More,text`); the invariant reports 286 violations of 1,090 edits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../bench/edit-robustness/rng.ts";
import { replaceInText } from "../../src/edit/match.ts";
import { literalSpansByLine } from "../../src/edit/literals.ts";

const WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"];

interface Generated {
  text: string;
  /** Every literal, delimiters included, as written in the file. */
  literals: string[];
}

function generate(rng: Rng): Generated {
  let serial = 0;
  const w = (): string => `${rng.pick(WORDS)}${++serial}`;
  const list = (): string =>
    Array.from({ length: 2 + rng.int(3) }, w).join(rng.pick([", ", " , ", ",  ", " ,", ",", "  ,  "]));
  const literals: string[] = [];
  const lit = (open: string, body: string, close = open): string => {
    const s = open + body + close;
    literals.push(s);
    return s;
  };
  const kinds: Array<() => string[]> = [
    () => [`  call(${w()}, ${lit('"', list())}, ${w()});`],
    () => [`  x = f(${w()}, r${lit("'", list())})`],
    () => [`  log(${lit("`", list())}, ${w()});`],
    () => [`  y = [${lit("'", list())}, ${w()}, ${lit('"', `${list()}  ${w()}`)}]`],
    () => {
      const doc = lit('"""', `${list()}\n    ${list()}\n    `);
      return doc.split("\n").map((l, i) => (i === 0 ? `    ${l}` : l));
    },
    () => {
      const t = lit("`", `${list()}\n${list()}`);
      const [a, b] = t.split("\n");
      return [`  t = ${a}`, `${b};`];
    },
    () => [`  if (${w()}) {`, `    q(${w()}, ${lit('"', list())});`, "  }"],
  ];
  const lines = ["function main() {"];
  for (let i = 0, n = 5 + rng.int(6); i < n; i++) lines.push(...rng.pick(kinds)());
  lines.push("}");
  return { text: `${lines.join("\n")}\n`, literals };
}

/** The model's copy: blanks next to commas dropped or added, runs collapsed, or lines joined. */
function mistake(rng: Rng, s: string): string {
  const kind = rng.int(4);
  if (kind === 0) return s.replace(/[ \t]*,[ \t]*/g, ",");
  if (kind === 1) return s.replace(/[ \t]*,[ \t]*/g, ", ");
  if (kind === 2) return s.replace(/[ \t]{2,}/g, " ");
  return s.replace(/\n[ \t]*/g, rng.pick(["", " "]));
}

const count = (hay: string, needle: string): number => hay.split(needle).length - 1;

test("whitespace tiers never respace a string literal's content (generated files, copies with blanks moved)", () => {
  const rng = new Rng(3405);
  const tally = { cases: 0, applied: 0, violations: 0, insideLiteral: 0 };
  const violations: string[] = [];
  for (let k = 0; k < 1500; k++) {
    const g = generate(rng);
    const lines = g.text.split("\n");
    const at = 1 + rng.int(lines.length - 3);
    const len = 1 + rng.int(Math.min(3, lines.length - 2 - at));
    const region = lines.slice(at, at + len).join("\n");
    const regionStart = lines.slice(0, at).join("\n").length + 1;
    const words = [...region.matchAll(/[a-z]+\d+/g)];
    if (words.length === 0) continue;
    const target = rng.pick(words);
    const copy = mistake(rng, region);
    if (copy === region) continue;
    const inCopy = new RegExp(`\\b${target[0]}\\b`).exec(copy);
    if (!inCopy) continue;
    const renamed = `${target[0]}X`;
    const neu = copy.slice(0, inCopy.index) + renamed + copy.slice(inCopy.index + target[0].length);
    const from = regionStart + target.index!;
    const intended = g.text.slice(0, from) + renamed + g.text.slice(from + target[0].length);
    const expected = g.literals.map((l) => l.replace(new RegExp(`\\b${target[0]}\\b`), renamed));
    if (expected.some((l, i) => l !== g.literals[i])) tally.insideLiteral++;
    tally.cases++;
    const r = replaceInText(g.text, copy, neu);
    if (!r.ok) continue;
    tally.applied++;
    for (const l of new Set(expected)) {
      if (count(r.text, l) !== count(intended, l)) {
        tally.violations++;
        if (violations.length < 5)
          violations.push(`${r.outcome.tier}: literal ${JSON.stringify(l)} lost; copy ${JSON.stringify(copy)}`);
        break;
      }
    }
  }
  assert.deepEqual(violations, [], JSON.stringify(tally));
  assert.ok(tally.cases >= 800 && tally.applied >= tally.cases * 0.5, JSON.stringify(tally));
  assert.ok(tally.insideLiteral >= 200, JSON.stringify(tally));
});

test("the file's literals, line by line: docstrings and template literals over lines, prefixes, comments", () => {
  const text =
    'x = "a, b" + \'c\'\ndef f():\n    """Doc, x.\n    more , y\n    """\n    r\'q, r\' # don\'t "x"\n' +
    "let t = `a\nb, c` + \"d\" // it's\n/* 'no' */ s = 'it''s'\n";
  const lines = text.split("\n");
  const spans = literalSpansByLine(text);
  const got = lines.map((l, i) => spans[i].map(([a, b]) => l.slice(a, b)));
  assert.deepEqual(got, [
    ["a, b", "c"],
    [],
    ["Doc, x."],
    ["    more , y"],
    ["    "],
    ["q, r"],
    ["a"],
    ["b, c", "d"],
    ["it", "s"],
    [],
  ]);
});

test("a changed line inside a docstring keeps the file's blanks around the words the caller left alone", () => {
  const file = 'def f():\n    """Doc, here.\n\n    More , text.\n    """\n    return 1\n';
  const r = replaceInText(
    file,
    'def f():\n    """Doc,here.\n\n    More,text.\n    """',
    'def f():\n    """Doc,here.\n\n    More,text, too.\n    """',
  );
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.text, 'def f():\n    """Doc, here.\n\n    More , text, too.\n    """\n    return 1\n');
});
