// The token-whitespace tier, against TypeScript's own scanner as the judge of
// what a token is. From real JavaScript files (node_modules packages nobody on
// this project wrote), a region of lines is copied the way a model re-types
// it: the same tokens with other layout between them (line breaks removed or
// added, blanks dropped next to punctuation, runs of blanks). The scanner
// confirms the copy has exactly the file's tokens, and rt must apply an edit
// made on that copy (a rename of one identifier) with the file's own layout.
// The negative pairs remove the blank between two words (`const x` →
// `constx`): the scanner sees other tokens, and rt must refuse.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { Rng } from "../../bench/edit-robustness/rng.ts";
import { replaceInText } from "../../src/edit/match.ts";
import { REPO } from "../helpers.ts";

interface ScannedToken {
  kind: ts.SyntaxKind;
  text: string;
  start: number;
  end: number;
}

/** TypeScript's scanner's tokens (trivia skipped); undefined when it reports an error. */
function scan(text: string): ScannedToken[] | undefined {
  let error = false;
  const s = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text, () => (error = true));
  const out: ScannedToken[] = [];
  for (let k = s.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = s.scan()) {
    out.push({ kind: k, text: s.getTokenText(), start: s.getTokenStart(), end: s.getTokenEnd() });
  }
  return error ? undefined : out;
}

const same = (a: ScannedToken[] | undefined, b: ScannedToken[] | undefined): boolean =>
  !!a && !!b && a.length === b.length && a.every((t, i) => t.kind === b[i].kind && t.text === b[i].text);

/** Real JavaScript sources: plain .js files of a few packages, 2-60 KB. */
function sources(): string[] {
  const out: string[] = [];
  for (const pkg of ["minimist", "diff/lib", "zod/v3", "semver", "yaml/dist", "ajv/dist"]) {
    const dir = path.join(REPO, "node_modules", pkg);
    if (!fs.existsSync(dir)) continue;
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory() && out.length < 200) walk(p);
        else if (/\.(c?js)$/.test(e.name)) {
          const size = fs.statSync(p).size;
          if (size > 2000 && size < 60_000) out.push(p);
        }
      }
    };
    walk(dir);
  }
  return out.sort();
}

/** Re-joins the region's tokens with random layout, only where the scanner still reads the same tokens. */
function relayout(rng: Rng, region: string, tokens: ScannedToken[]): string {
  let out = tokens[0].text;
  for (let i = 1; i < tokens.length; i++) {
    const gap = region.slice(tokens[i - 1].end, tokens[i].start);
    // Comments are kept as they are (their text is not layout).
    if (/\/[/*]/.test(gap)) {
      out += gap + tokens[i].text;
      continue;
    }
    const choices = ["", " ", "  ", "\n", "\n    ", gap];
    let pick = rng.pick(choices);
    // Where the file needs a blank (two words) or a line break (automatic semicolons), keep the file's.
    if (gap !== "" && pick === "") pick = gap.includes("\n") ? gap : " ";
    if (gap.includes("\n") && !pick.includes("\n")) pick = gap;
    out += pick + tokens[i].text;
  }
  return out;
}

test("TypeScript's scanner as judge: a copy with the same tokens laid out differently is applied with the file's layout; words run together are refused", () => {
  const rng = new Rng(3402);
  const files = sources();
  assert.ok(files.length >= 10, `only ${files.length} source files found`);
  const tally = { pairs: 0, applied: 0, correct: 0, tokenTier: 0, negatives: 0, negativesRefused: 0 };
  const wrong: string[] = [];
  for (let k = 0; k < 160; k++) {
    const text = fs.readFileSync(rng.pick(files), "utf8").replace(/\r\n/g, "\n");
    const lines = text.split("\n");
    const at = rng.int(Math.max(1, lines.length - 8));
    const n = 3 + rng.int(5);
    const region = lines.slice(at, at + n).join("\n");
    const tokens = scan(region);
    if (
      !tokens ||
      tokens.length < 6 ||
      tokens.some(
        (t) => t.kind === ts.SyntaxKind.TemplateHead || t.kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral,
      )
    )
      continue;
    const copy = relayout(rng, region, tokens);
    if (copy === region || !same(scan(copy), tokens)) continue;
    // The change: one identifier renamed, in the copy (new_string) and in the file (the intended result).
    const ids = tokens.map((t, i) => [t, i] as const).filter(([t]) => t.kind === ts.SyntaxKind.Identifier);
    if (ids.length === 0) continue;
    const [id, idx] = rng.pick(ids);
    const copyTokens = scan(copy)!;
    const ct = copyTokens[idx];
    const neu = copy.slice(0, ct.start) + id.text + "Renamed" + copy.slice(ct.end);
    const regionStart = lines.slice(0, at).join("\n").length + (at > 0 ? 1 : 0);
    const intended = text.slice(0, regionStart + id.start) + id.text + "Renamed" + text.slice(regionStart + id.end);
    tally.pairs++;
    const r = replaceInText(text, copy, neu);
    if (r.ok) {
      tally.applied++;
      if (r.outcome.tier === "token-whitespace") tally.tokenTier++;
      if (r.text === intended) tally.correct++;
      else wrong.push(`${r.outcome.tier}: ${JSON.stringify(copy).slice(0, 160)}`);
    }
    // The negative: the blank between two adjacent words removed (the scanner reads one identifier).
    const pairs = copyTokens
      .map((t, i) => i)
      .filter((i) => i > 0 && /^\w+$/.test(copyTokens[i - 1].text) && /^\w+$/.test(copyTokens[i].text));
    if (pairs.length > 0) {
      const i = rng.pick(pairs);
      const joined = copy.slice(0, copyTokens[i - 1].end) + copy.slice(copyTokens[i].start);
      if (!same(scan(joined), copyTokens)) {
        tally.negatives++;
        const bad = replaceInText(text, joined, joined + "\n// changed");
        if (!bad.ok) tally.negativesRefused++;
        else wrong.push(`negative applied by ${bad.outcome.tier}: ${JSON.stringify(joined).slice(0, 160)}`);
      }
    }
  }
  assert.deepEqual(wrong, [], JSON.stringify(tally));
  assert.ok(tally.pairs >= 60 && tally.tokenTier >= tally.pairs * 0.5, JSON.stringify(tally));
  assert.ok(tally.correct >= tally.pairs * 0.9, JSON.stringify(tally));
  assert.ok(tally.negatives >= 30 && tally.negativesRefused === tally.negatives, JSON.stringify(tally));
});

test("the issue's cases: one-line copies of multi-line code, pretty-printed JSON, a padded fragment", () => {
  const f = replaceInText(
    "function test() {\n  return true;\n}\n",
    "function test(){return true;}",
    "function test(){return false;}",
  );
  assert.ok(f.ok && f.outcome.tier === "token-whitespace");
  assert.equal(f.text, "function test() {\n  return false;\n}\n");
  // The copy stops before the `;`: the match is its tokens, and the `;` stays.
  const c = replaceInText("const foo = bar;\n", "const   foo=bar", "const foo=baz");
  assert.ok(c.ok);
  assert.equal(c.text, "const foo = baz;\n");
  const json = '{\n  "key": "value",\n  "nested": {\n    "prop": 123\n  }\n}\n';
  const j = replaceInText(json, '{"key":"value","nested":{"prop":123}}', '{"key":"value","nested":{"prop":456}}');
  assert.ok(j.ok);
  assert.equal(j.text, json.replace("123", "456"));
  assert.deepEqual(JSON.parse(j.text), { key: "value", nested: { prop: 456 } });
  const p = replaceInText("let a = 1;\nconst x = 5;\nlet b = 2;\n", "   \n\t  const x = 5;  \t\n  ", "const x = 6;");
  assert.ok(p.ok);
  assert.equal(p.text, "let a = 1;\nconst x = 6;\nlet b = 2;\n");
});

test("token-whitespace refuses what would change the tokens: words run together, operators joined, a string's words run together, two places", () => {
  const refused = (text: string, old: string): void => {
    const r = replaceInText(text, old, old + " // x");
    assert.equal(r.ok, false, `${JSON.stringify(old)} matched ${r.ok ? r.outcome.tier : ""}`);
  };
  refused("const test = 1;\n", "consttest = 1;");
  refused("x = a - -b;\n", "x = a --b;");
  refused('say("a b");\nx();\n', 'say("ab");x();');
  const two = replaceInText("f(a, b);\ng();\nf(a,b);\n", "f( a , b )", "h(a, b)");
  assert.equal(two.ok, false);
  if (!two.ok) assert.equal(two.reason, "ambiguous");
});
