// serializeAgainst (the bytes of an edited file, copying its unchanged first
// and last lines from the bytes read) equals serialize on the whole model, over
// generated edits of files with LF, CRLF and mixed endings, a BOM or none, a
// final newline or none, and bytes that are not UTF-8.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFile, serialize, serializeAgainst, withLines } from "../../src/edit/fileModel.ts";

test("serializeAgainst equals serialize (3,000 generated edits)", () => {
  let seed = 11;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let k = 0; k < 3000; k++) {
    const n = rnd(30);
    const parts: Buffer[] = [];
    if (rnd(4) === 0) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
    for (let i = 0; i < n; i++) {
      const line =
        rnd(10) === 0
          ? Buffer.from([0x61, 0xff, 0x62])
          : Buffer.from(rnd(8) === 0 ? "" : `line ${i} ${"x".repeat(rnd(5))}`);
      parts.push(line);
      const last = i === n - 1;
      if (!last || rnd(3) > 0) parts.push(Buffer.from(rnd(3) === 0 ? "\r\n" : "\n"));
    }
    const bytes = Buffer.concat(parts);
    const old = parseFile(bytes);
    const lines = [...old.lines];
    for (let o = 0, ops = rnd(4); o < ops; o++) {
      const i = rnd(lines.length + 1);
      const kind = rnd(3);
      if (kind === 0) lines.splice(i, 0, `inserted ${k}`);
      else if (kind === 1) lines.splice(i, 1);
      else if (i < lines.length) lines[i] = `${lines[i]} changed`;
    }
    const finalNewline = rnd(6) === 0 ? !old.finalNewline : undefined;
    const m = finalNewline === undefined ? withLines(old, lines) : withLines(old, lines, finalNewline);
    assert.ok(
      serializeAgainst(old, bytes, m).equals(serialize(m)),
      `case ${k}: ${JSON.stringify(bytes.toString("latin1"))} -> ${JSON.stringify(serialize(m).toString("latin1"))}`,
    );
  }
});

test("a model not made by withLines (write's content parsed afresh) is serialized as it is", () => {
  const old = parseFile(Buffer.from("a\nb\nc\n"));
  const m = parseFile(Buffer.from("a\r\nb\r\nc\r\n"));
  assert.equal(serializeAgainst(old, Buffer.from("a\nb\nc\n"), m).toString(), "a\r\nb\r\nc\r\n");
});

test("serializeAgainst: the last lines deleted from a file without a final newline leave none", () => {
  const bytes = Buffer.from("a\r\nb\r\nlast");
  const old = parseFile(bytes);
  const m = withLines(old, ["a", "b"], false);
  assert.equal(serialize(m).toString(), "a\r\nb");
  assert.equal(serializeAgainst(old, bytes, m).toString(), "a\r\nb");
});
