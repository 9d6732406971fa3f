// grep finds a literal pattern's shown lines itself (literalLines), instead of
// a second ripgrep run. The oracle for every case here is ripgrep: the
// invariants are
// - a pattern literalOf calls literal matches, in ripgrep, exactly the lines
//   its literal matches with --fixed-strings;
// - where literalLines gives an answer, it is ripgrep's own output for that
//   file (lines, numbers, context, text), over generated files with CRLF and
//   lone CR endings, byte order marks, invalid UTF-8, lines around ripgrep's
//   2,000-byte cut, no final newline;
// - grep's result for a literal pattern is byte-identical to its result for
//   a regular expression matching the same lines (which goes through ripgrep).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { literalLines, literalOf, type PrintedLine } from "../../src/tools/shared/literalLines.ts";
import { rgPath } from "../../src/tools/shared/ripgrep.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";
import { tempTree, seededRandom } from "../helpers.ts";

const RG_COLUMNS = 2000;

/** ripgrep's lines for `args` on one file, parsed as grep parses them (one trailing CR dropped). */
function rgLines(file: string, args: string[]): { count: number; lines: PrintedLine[] } {
  const r = spawnSync(
    rgPath(),
    [
      "--no-config",
      "--crlf",
      "--line-number",
      "--with-filename",
      "--null",
      "--max-columns",
      String(RG_COLUMNS),
      "--max-columns-preview",
      ...args,
      "--",
      file,
    ],
    {
      maxBuffer: 1 << 26,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  assert.ok(r.status === 0 || r.status === 1, r.stderr.toString());
  const out = r.stdout;
  const lines: PrintedLine[] = [];
  let count = 0;
  let from = 0;
  for (let nl = out.indexOf(10); nl !== -1; nl = out.indexOf(10, from)) {
    let end = nl;
    if (end > from && out[end - 1] === 13) end--;
    const nul = out.indexOf(0, from);
    if (nul !== -1 && nul < end) {
      let i = nul + 1;
      let n = 0;
      for (; out[i] >= 48 && out[i] <= 57; i++) n = n * 10 + out[i] - 48;
      const match = out[i] === 58;
      if (match) count++;
      lines.push({ line: n, match, content: out.toString("utf8", i + 1, end) });
    }
    from = nl + 1;
  }
  return { count, lines };
}

test("literalOf: patterns it calls literal match in ripgrep what their literal matches as a fixed string", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-literal-of-"));
  const r = seededRandom(7);
  const ALPHABET = [
    "a",
    "b",
    "x",
    " ",
    "(",
    ")",
    ".",
    "*",
    "+",
    "?",
    "[",
    "]",
    "{",
    "}",
    "|",
    "^",
    "$",
    "-",
    "#",
    "&",
    "~",
    "<",
    ">",
    "/",
    ":",
    "'",
    '"',
    "!",
    "%",
    "=",
    "@",
    "_",
    ",",
    ";",
    "é",
    "\\",
    "\t",
  ];
  const corpusLines: string[] = [];
  for (let i = 0; i < 400; i++)
    corpusLines.push(Array.from({ length: 3 + r.int(25) }, () => r.pick(ALPHABET)).join(""));
  const corpus = path.join(dir, "corpus.txt");
  fs.writeFileSync(corpus, `${corpusLines.join("\n")}\n`);
  const SYNTAX = ".+*?()|[]{}^$\\";
  let literals = 0;
  let regexes = 0;
  for (let k = 0; k < 300; k++) {
    // A piece of a corpus line, its punctuation escaped or not at random.
    const line = r.pick(corpusLines);
    const start = r.int(line.length);
    const piece = line.slice(start, start + 1 + r.int(6));
    let pattern = "";
    for (const c of piece)
      pattern += /[!-/:-@[-`{-~]/.test(c) && r.chance(SYNTAX.includes(c) ? 0.8 : 0.3) ? `\\${c}` : c;
    const literal = literalOf(pattern, {});
    if (literal === undefined) {
      regexes++;
      continue;
    }
    literals++;
    const asRegex = spawnSync(rgPath(), ["--no-config", "-n", "--regexp", pattern, corpus], { encoding: "utf8" });
    const asText = spawnSync(rgPath(), ["--no-config", "-n", "--fixed-strings", "--regexp", literal, corpus], {
      encoding: "utf8",
    });
    assert.equal(asRegex.status, asText.status, `${JSON.stringify(pattern)}: ${asRegex.stderr}`);
    assert.equal(asRegex.stdout, asText.stdout, `${JSON.stringify(pattern)} read as ${JSON.stringify(literal)}`);
  }
  assert.ok(literals > 100 && regexes > 30, `both kinds generated (${literals} literal, ${regexes} not)`);
  for (const p of ["\\<foo", "foo\\>", "\\bfoo", "\\d", "a.b", "a\\nb", "(?x)a b", "", "a\nb"])
    assert.equal(literalOf(p, {}), undefined, p);
  assert.equal(literalOf("getMutex\\(", {}), "getMutex(");
  assert.equal(literalOf("a.b", { fixedStrings: true }), "a.b");
  assert.equal(literalOf("foo", { ignoreCase: true }), undefined, "case folding is ripgrep's");
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A file of random lines, with the encodings and line ends ripgrep treats specially. */
function generateFile(r: ReturnType<typeof seededRandom>): Buffer {
  const parts: Buffer[] = [];
  const start = r.int(30);
  if (start === 0) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  else if (start === 1) parts.push(Buffer.from([0xff, 0xfe]));
  const lines = 1 + r.int(40);
  for (let i = 0; i < lines; i++) {
    const kind = r.int(20);
    let text: Buffer;
    if (kind === 0) text = Buffer.from(`${"a".repeat(RG_COLUMNS - 6 + r.int(12))}${r.chance(0.5) ? "needle" : ""}`);
    else if (kind === 1)
      text = Buffer.concat([Buffer.from("bad "), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(" needle")]);
    else if (kind === 2) text = Buffer.from(`é needle ü ${"ß".repeat(r.int(5))}`);
    else if (kind === 3) text = Buffer.from("");
    else if (kind === 4 && r.chance(0.2)) text = Buffer.from("nul \0 needle");
    else if (kind === 5) text = Buffer.from("lone\rcr needle");
    else text = Buffer.from(r.chance(0.35) ? `line ${i} needle ${r.int(99)} needle` : `line ${i} nothing`);
    parts.push(text);
    const last = i === lines - 1;
    if (last && r.chance(0.3)) break; // no final newline
    parts.push(Buffer.from(r.chance(0.3) ? "\r\n" : last && r.chance(0.1) ? "\r" : "\n"));
  }
  return Buffer.concat(parts);
}

test("literalLines: where it answers, ripgrep prints the same lines; where it cannot copy ripgrep, it says so", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rt-literal-lines-"));
  const r = seededRandom(11);
  let answered = 0;
  let declined = 0;
  for (let k = 0; k < 400; k++) {
    const bytes = generateFile(r);
    const file = path.join(dir, `f${k}.txt`);
    fs.writeFileSync(file, bytes);
    const before = r.int(4);
    const after = r.int(4);
    const literal = r.pick(["needle", "ne", "needle ", "é needle", "\r"].slice(0, 4));
    const mine = literalLines(bytes, Buffer.from(literal), before, after, RG_COLUMNS);
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || bytes.includes(0);
    if (utf16) assert.equal(mine, undefined, `f${k}: UTF-16 or NUL is left to ripgrep`);
    if (mine === undefined) {
      declined++;
      continue;
    }
    answered++;
    const want = rgLines(file, [
      "--fixed-strings",
      "--before-context",
      String(before),
      "--after-context",
      String(after),
      "--regexp",
      literal,
    ]);
    assert.deepEqual(
      mine,
      want,
      `f${k} (${JSON.stringify(literal)}, -B${before} -A${after}): ${JSON.stringify(bytes.toString("latin1").slice(0, 200))}`,
    );
    // Cut at the m-th match: the same lines up to that match's after-context.
    const m = 1 + r.int(3);
    const cut = literalLines(bytes, Buffer.from(literal), before, after, RG_COLUMNS, m);
    assert.equal(cut?.count, want.count, "every matching line is still counted");
    const upTo = want.lines.findIndex(
      (l, i) => l.match && want.lines.slice(0, i + 1).filter((x) => x.match).length === m,
    );
    if (upTo === -1) assert.deepEqual(cut?.lines, want.lines);
    else {
      let end = upTo + 1;
      while (
        end < want.lines.length &&
        !want.lines[end].match &&
        want.lines[end].line === want.lines[end - 1].line + 1 &&
        want.lines[end].line - want.lines[upTo].line <= after
      )
        end++;
      assert.deepEqual(cut?.lines, want.lines.slice(0, end), `f${k}: cut at match ${m}`);
    }
  }
  assert.ok(answered > 200 && declined > 20, `both answered (${answered}) and declined (${declined})`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("grep: a literal pattern's result is byte-identical to a regular expression's matching the same lines (found by ripgrep's second run)", async () => {
  const r = seededRandom(23);
  for (let t = 0; t < 4; t++) {
    const files: Record<string, string | Buffer> = {};
    for (let i = 0; i < 120; i++)
      files[`${r.pick(["a", "b", "a/c", "d-e", "é"])}/${r.pick(["x", "y", "z"])}${i}.txt`] = generateFile(r);
    const root = tempTree(files, "rt-grep-literal-");
    const ws = createWorkspace({ root, env: {} });
    for (const [limit, context] of [
      [200, 0],
      [7, 0],
      [25, 2],
      [1, 3],
      [100000, 1],
    ]) {
      const args = { limit, context };
      const literal = await callTool(ws, "grep", { pattern: "needle", ...args });
      const regex = await callTool(ws, "grep", { pattern: "need[l]e", ...args });
      assert.equal(literal.success, true, literal.error);
      assert.equal(literal.output, regex.output, `tree ${t}, limit ${limit}, context ${context}`);
      assert.deepEqual(literal.matches, regex.matches);
      assert.equal(literal.count, regex.count);
      assert.deepEqual(literal.binary_files, regex.binary_files);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("a file where ripgrep meets a NUL byte after some matches is left out whole, for literal and regular-expression patterns and in count mode", async () => {
  let text = "";
  for (let i = 0; i < 8000; i++) text += i % 100 === 0 ? `needle here ${i}\n` : `filler line ${i}\n`;
  // The NUL lies beyond ripgrep's first read of the file (120 KB in), after matches it has already printed.
  const root = tempTree(
    {
      "big.txt": Buffer.concat([Buffer.from(text), Buffer.from([0]), Buffer.from(`\nneedle after\n${text}`)]),
      "ok.txt": "needle\n",
    },
    "rt-grep-late-nul-",
  );
  const ws = createWorkspace({ root, env: {} });
  for (const pattern of ["needle", "need[l]e"]) {
    for (const context of [0, 2]) {
      const r = await callTool(ws, "grep", { pattern, context });
      assert.equal(r.output, "ok.txt:1: needle", `${pattern} -C${context}`);
      assert.equal(r.count, 1);
    }
  }
  const counts = await callTool(ws, "grep", { pattern: "need[l]e", output_mode: "count" });
  assert.deepEqual(counts.counts, [{ file: "ok.txt", count: 1 }]);
  fs.rmSync(root, { recursive: true, force: true });
});
