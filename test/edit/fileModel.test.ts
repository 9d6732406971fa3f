import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFile, serialize, withLines, normalizedText, splitContent } from "../../src/edit/fileModel.ts";

const roundTrip = (b: Buffer) => assert.deepEqual(serialize(parseFile(b)), b);

test("parse + serialize is byte-identical for LF, CRLF, mixed, BOM, no final newline, tabs, invalid UTF-8, empty", () => {
  roundTrip(Buffer.from("a\nb\n"));
  roundTrip(Buffer.from("a\r\nb\r\n"));
  roundTrip(Buffer.from("a\r\nb\nc\r\n"));
  roundTrip(Buffer.from("\ufeffa\nb"));
  roundTrip(Buffer.from("a\n\tb\n\n"));
  roundTrip(Buffer.from([0x61, 0xff, 0xfe, 0x0a, 0x62, 0xc3, 0x28, 0x0a]));
  roundTrip(Buffer.alloc(0));
  roundTrip(Buffer.from("\n\n"));
  roundTrip(Buffer.from("x\r"));
});

test("withLines keeps untouched lines' own endings and bytes; new lines get the dominant ending", () => {
  const m = parseFile(Buffer.from([...Buffer.from("one\r\ntwo\nthree\r\nbad"), 0xff, ...Buffer.from("\r\nlast")]));
  assert.equal(m.eol, "\r\n");
  const lines = [...m.lines];
  lines.splice(1, 1, "TWO", "TWO-B");
  const out = serialize(withLines(m, lines));
  const expected = Buffer.concat([
    Buffer.from("one\r\nTWO\r\nTWO-B\r\nthree\r\nbad"),
    Buffer.from([0xff]),
    Buffer.from("\r\nlast"),
  ]);
  assert.deepEqual(out, expected);
});

test("appending to a file without a final newline keeps the absence at the end", () => {
  const m = parseFile(Buffer.from("a\nb"));
  const out = serialize(withLines(m, ["a", "b", "c"]));
  assert.equal(out.toString(), "a\nb\nc");
});

test("content written into an empty file ends with a newline; deleting everything leaves an empty file", () => {
  assert.equal(serialize(withLines(parseFile(Buffer.alloc(0)), ["x"])).toString(), "x\n");
  assert.equal(serialize(withLines(parseFile(Buffer.from("a\nb\n")), [])).length, 0);
});

test("BOM survives an edit", () => {
  const m = parseFile(Buffer.from("\ufeffa\nb\n"));
  assert.equal(serialize(withLines(m, ["a", "B"])).toString(), "\ufeffa\nB\n");
});

test("normalizedText and splitContent", () => {
  assert.equal(normalizedText(parseFile(Buffer.from("a\r\nb"))), "a\nb");
  assert.deepEqual(splitContent("x\r\ny\n"), ["x", "y"]);
  assert.deepEqual(splitContent(""), []);
  assert.deepEqual(splitContent("\n"), [""]);
});

/** parseFile as it was written first: each line decoded on its own, its ending read from the bytes (the reference). */
function parseLineByLine(bytes: Buffer) {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  const lines: string[] = [];
  const eols: string[] = [];
  let crlf = 0;
  let lf = 0;
  let s = 0;
  for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, s)) {
    const isCrlf = i > s && body[i - 1] === 13;
    lines.push(body.toString("utf8", s, isCrlf ? i - 1 : i));
    eols.push(isCrlf ? "\r\n" : "\n");
    if (isCrlf) crlf++;
    else lf++;
    s = i + 1;
  }
  const finalNewline = s === body.length && body.length > 0;
  if (s < body.length) {
    lines.push(body.toString("utf8", s));
    eols.push(crlf > lf ? "\r\n" : "\n");
  }
  return { bom, lines, eols, finalNewline, eol: crlf > lf ? "\r\n" : "\n" };
}

test("invariant: parseFile of valid UTF-8 (decoded whole, then split) equals the line-by-line reading, over 5,000 generated files", () => {
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const pieces = ["a", "é", "日本", "😀", " ", "\t", "\r", "\n", "\r\n", "\n\n", "x = 1", "\r\r\n", "\ufeff"];
  for (let k = 0; k < 5000; k++) {
    let text = rand(10) === 0 ? "\ufeff" : "";
    const n = rand(12);
    for (let i = 0; i < n; i++) text += pieces[rand(pieces.length)];
    const bytes = Buffer.from(text, "utf8");
    const m = parseFile(bytes);
    const ref = parseLineByLine(bytes);
    assert.deepEqual(
      { bom: m.bom, lines: m.lines, eols: m.eols, finalNewline: m.finalNewline, eol: m.eol },
      ref,
      JSON.stringify(text),
    );
    assert.ok(m.raw.every((r) => r === null) && m.raw.length === m.lines.length);
    assert.ok(serialize(m).equals(bytes), JSON.stringify(text));
  }
});
