// The escape rule of the unescaped tier, as an invariant over generated cases.
//
// A model that escapes text as in a JSON string copies `find "me"` as
// `find \"me\"`. old_string then matches only once the escape sequences are
// undone, which proves they were escaping, not the file's text; so rt must
// never write one of those sequences into the file unless the file already
// uses it literally in the lines the edit touches (a string literal that
// really holds `\"`). Where it cannot tell which reading of new_string is
// meant, it refuses.
//
// The generator makes files mixing prose with quotes, code whose string
// literals hold real escapes, and Windows paths; picks a line; and makes the
// model's call with one escape mistake: old_string escaped once too often,
// new_string escaped the same way, or written correctly, or with the
// mistake applied only to its own new text. The invariant is checked on what
// would be written.
//
// Mutation that makes this test fail: in src/edit/match.ts, guardEscapes,
// turn `if (seqs.length === 0)` into `if (seqs.length >= 0)` (the rule never
// applies): the cases where new_string is escaped like old_string then write
// `\"` into lines that never had it (`replace with \"this\"`); the invariant
// reports 187 violations. Without the indentation merge in replacementText.ts
// (adaptLine), a line whose leading tab the copy wrote as `\t` loses its tab,
// and the check that every rename escaped everywhere lands as intended fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../bench/edit-robustness/rng.ts";
import { replaceInText } from "../../src/edit/match.ts";
import { undoneEscapes } from "../../src/edit/normalize.ts";

/** One level of escaping, as a model writing a JSON string adds it. */
function escapeOnce(s: string, breaks: boolean): string {
  let out = s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\t/g, "\\t");
  if (breaks) out = out.replace(/\n/g, "\\n");
  return out;
}

const WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "lambda", "zeta"];

function generateFile(rng: Rng): string[] {
  const w = () => rng.pick(WORDS) + rng.int(100);
  const kinds = [
    () => `This is a ${w()} string to find "${w()}".`,
    () => `const ${w()} = "${w()} \\"${w()}\\" ${w()}";`,
    () => `path = "C:\\\\${w()}\\\\${w()}"`,
    () => `print("${w()}\\n", '${w()}')`,
    () => `  ${w()}: "${w()}", // "${w()}"`,
    () => `plain ${w()} ${w()} text`,
    () => `\tsay("${w()}\\t${w()}")`,
  ];
  return Array.from({ length: 8 + rng.int(10) }, () => rng.pick(kinds)());
}

/** The intended new version of a line: a word replaced, a quoted word or a path added. */
function change(rng: Rng, line: string): { line: string; rename: boolean } {
  const m = /[a-z]+\d+/.exec(line)!;
  if (rng.chance(0.4)) return { line: line.replace(m[0], m[0] + "x"), rename: true };
  const edits = [() => line + ` "extra"`, () => line.replace(m[0], `"${m[0]}"`), () => line + ` \\ C:\\tmp`];
  return { line: rng.pick(edits)(), rename: false };
}

function count(hay: string, needle: string): number {
  let n = 0;
  for (let p = hay.indexOf(needle); p !== -1; p = hay.indexOf(needle, p + 1)) n++;
  return n;
}

type Mode = "both-escaped" | "new-correct" | "new-half";

test("unescaped tier: an escape sequence undone in old_string is never written where the file does not use it", () => {
  const rng = new Rng(3401);
  const tally = { cases: 0, applied: 0, unescaped: 0, refused: 0, intended: 0, bothEscaped: 0, bothEscapedIntended: 0 };
  const violations: string[] = [];
  for (let k = 0; k < 600; k++) {
    const lines = generateFile(rng);
    const at = rng.int(lines.length);
    const span = rng.chance(0.3) && at + 1 < lines.length ? 2 : 1;
    const target = lines.slice(at, at + span).join("\n");
    const { line: newLine, rename } = change(rng, lines[at]);
    const changed = [newLine, ...lines.slice(at + 1, at + span)].join("\n");
    const breaks = span > 1 && rng.chance(0.5);
    const old = escapeOnce(target, breaks);
    if (old === target) continue;
    const mode: Mode = rng.pick(["both-escaped", "new-correct", "new-half"] as const);
    const neu =
      mode === "both-escaped"
        ? escapeOnce(changed, breaks)
        : mode === "new-correct"
          ? changed
          : // The lines the model copied escaped, its own addition escaped too: only the changed line escaped.
            [escapeOnce(changed.split("\n")[0], false), ...changed.split("\n").slice(1)].join("\n");
    const text = lines.join("\n") + "\n";
    const intended = [...lines.slice(0, at), ...changed.split("\n"), ...lines.slice(at + span)].join("\n") + "\n";
    tally.cases++;
    // A rename adds no quote or backslash: escaped everywhere, its one right result is the intended one.
    const plainRename = mode === "both-escaped" && rename;
    if (plainRename) tally.bothEscaped++;
    const r = replaceInText(text, old, neu);
    if (!r.ok) {
      tally.refused++;
      continue;
    }
    tally.applied++;
    if (r.text === intended) {
      tally.intended++;
      if (plainRename) tally.bothEscapedIntended++;
    }
    if (r.outcome.tier !== "unescaped") continue;
    tally.unescaped++;
    // The lines the edit touched, as they were.
    const first = Math.min(...r.outcome.replacements.map((x) => x.startLine));
    const last = Math.max(...r.outcome.replacements.map((x) => x.endLine));
    const region = lines.slice(first - 1, last).join("\n");
    for (const s of undoneEscapes(old)) {
      if (count(r.text, s) > count(text, s) && !region.includes(s)) {
        violations.push(
          `${mode}: ${JSON.stringify(old)} -> ${JSON.stringify(neu)} wrote ${s} into ${JSON.stringify(r.text.split("\n")[first - 1])}`,
        );
      }
    }
  }
  assert.deepEqual(violations.slice(0, 5), [], `${violations.length} violations of the escape rule`);
  // The rule is not met by refusing everything: most cases are applied, and a rename escaped everywhere as intended.
  assert.ok(tally.cases >= 500 && tally.unescaped >= tally.cases * 0.8, JSON.stringify(tally));
  assert.ok(tally.bothEscaped >= 50 && tally.bothEscapedIntended === tally.bothEscaped, JSON.stringify(tally));
});

test("the issue's case: a plain-text line, old_string and new_string escaped as in JSON", () => {
  const text = 'This is a test string to find "me".\n';
  const r = replaceInText(text, 'find \\"me\\"', 'replace with \\"this\\"');
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.text, 'This is a test string to replace with "this".\n');
  assert.match(r.outcome.note!, /unescaped once too/);
});

test("a file that really holds \\\" in the edited string literal keeps new_string's escapes", () => {
  const text = 'const s = "a \\"q\\" b";\n';
  // old_string doubled: \\\" for the file's \"; new_string written correctly.
  const r = replaceInText(text, 'const s = \\"a \\\\\\"q\\\\\\" b\\";', 'const s = "a \\"r\\" b";');
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.text, 'const s = "a \\"r\\" b";\n');
});

test("when neither reading is certain, the edit is refused with both readings", () => {
  // old_string escaped; new_string holds \" and also a bare quote: half escaped, or meant literally?
  const text = 'say "hi" now\n';
  const r = replaceInText(text, 'say \\"hi\\" now', 'say "hi" and \\"bye\\"');
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.reason, "escape-unclear");
  assert.match(r.message, /as written/);
  assert.match(r.message, /unescaped like old_string/);
});
