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
  const expected = Buffer.concat([Buffer.from("one\r\nTWO\r\nTWO-B\r\nthree\r\nbad"), Buffer.from([0xff]), Buffer.from("\r\nlast")]);
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
