// Binary files: a NUL byte in the first 8 KiB, or mostly control bytes, or a
// known magic number. read/open/grep-file refuse them naming size and type;
// grep over a tree skips them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { binaryKind, formatSize } from "../../src/workspace/binary.ts";
import { BINARY_SAMPLE_BYTES } from "../../src/base/limits.ts";
import { rt, rtBatch, tempTree } from "../helpers.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Buffer.from("IHDR needle")]);

test("binaryKind: NUL bytes, control bytes and magic numbers", () => {
  assert.equal(binaryKind(Buffer.from("plain text\n\ttabs\r\n")), null);
  assert.equal(binaryKind(Buffer.from("")), null);
  assert.equal(binaryKind(Buffer.from("héllo wörld ✓ 日本語\n")), null, "UTF-8 is text");
  assert.equal(binaryKind(Buffer.from("\x1b[31mred\x1b[0m\n")), null, "ANSI colour codes are text");
  assert.equal(binaryKind(Buffer.from("abc\0def")), "binary data");
  assert.equal(binaryKind(Buffer.from("a\x01\x02\x03\x04\x05\x06b")), "binary data", "mostly control bytes");
  assert.equal(binaryKind(Buffer.from(`${"x".repeat(100)}\x01`)), null, "a stray control byte does not make binary");
  assert.equal(binaryKind(PNG), "PNG image");
  assert.equal(binaryKind(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31])), "PDF document");
  assert.equal(binaryKind(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1])), "ELF executable");
  assert.equal(binaryKind(Buffer.from([0x1f, 0x8b, 8, 0])), "gzip archive");
  assert.equal(binaryKind(Buffer.from([0x50, 0x4b, 0x03, 0x04, 20])), "ZIP archive");
  // Only the first 8 KiB count.
  const lateNul = Buffer.concat([Buffer.alloc(BINARY_SAMPLE_BYTES, 0x61), Buffer.from([0])]);
  assert.equal(binaryKind(lateNul), null);
  const earlyNul = Buffer.concat([Buffer.alloc(BINARY_SAMPLE_BYTES - 1, 0x61), Buffer.from([0])]);
  assert.equal(binaryKind(earlyNul), "binary data");
});

test("binaryKind gives what a byte-by-byte count gives, over generated samples", () => {
  // The rule as it was first written: NUL anywhere is binary, else more than a
  // tenth of control bytes (other than backspace, tab, LF, VT, FF, CR, ESC).
  const reference = (head: Uint8Array): string | null => {
    let control = 0;
    for (const b of head) {
      if (b === 0) return "binary data";
      if (b < 0x20 && ![8, 9, 10, 11, 12, 13, 27].includes(b)) control++;
    }
    return control / head.length > 0.1 ? "binary data" : null;
  };
  let seed = 11;
  const next = () => (seed = (seed * 48271) % 2147483647);
  let binary = 0;
  for (let i = 0; i < 3000; i++) {
    const length = 1 + (next() % 300);
    const controlShare = (next() % 30) / 100;
    const bytes = new Uint8Array(length);
    for (let k = 0; k < length; k++) bytes[k] = next() % 1000 < controlShare * 1000 ? next() % 32 : 32 + (next() % 224);
    // Not a magic number: those are named before the count.
    if (bytes[0] < 0x20) bytes[0] = 0x61;
    const expected = reference(bytes);
    if (expected) binary++;
    assert.equal(binaryKind(bytes), expected, `sample ${i}: ${Buffer.from(bytes).toString("hex")}`);
    // A view into a larger buffer, as fileBinaryKind passes it.
    const wide = new Uint8Array(length + 9);
    wide.set(bytes, 5);
    assert.equal(binaryKind(wide.subarray(5, 5 + length)), expected, `sample ${i} as a view`);
  }
  assert.ok(binary > 300 && binary < 2700, `both kinds generated: ${binary} binary of 3000`);
});

test("formatSize", () => {
  assert.equal(formatSize(0), "0 B");
  assert.equal(formatSize(1023), "1023 B");
  assert.equal(formatSize(1024), "1.0 KiB");
  assert.equal(formatSize(1536), "1.5 KiB");
  assert.equal(formatSize(20 * 1024), "20 KiB");
  assert.equal(formatSize(3 * 1024 * 1024), "3.0 MiB");
  assert.equal(formatSize(5 * 1024 ** 3), "5.0 GiB");
});

function binTree() {
  const utf16 = Buffer.from("\ufeffneedle in utf-16\n", "utf16le");
  return tempTree({
    "img.png": PNG,
    "blob.bin": Buffer.concat([Buffer.from("needle"), Buffer.alloc(3000, 0), Buffer.from("needle\n")]),
    "ctrl.dat": Buffer.from("\x01\x02\x03\x04\x05needle\x06\x07\x08\x0e\x0f".repeat(100)),
    "utf16.txt": utf16,
    "text.txt": "a needle in text\n",
  });
}

test("read and open refuse binary files, naming type and size (CLI, exit 1)", async () => {
  const root = binTree();
  const cases: Array<[string[], RegExp]> = [
    // read takes images (issue 16): these 19 bytes are a PNG signature without an image.
    [
      ["read", "img.png"],
      /^rt read: img\.png: not a readable PNG image \(.*\); the file may be corrupt or truncated\n$/,
    ],
    [["open", "img.png"], /^rt open: img\.png: binary file \(PNG image, 19 B\); not shown\n$/],
    [["open", "blob.bin:2"], /^rt open: blob\.bin: binary file \(binary data, 2\.9 KiB\); not shown\n$/],
    [["read", "ctrl.dat"], /binary file \(binary data, 1\.6 KiB\)/],
    [["read", "utf16.txt"], /binary file \(binary data, 36 B\)/],
    [["grep-file", "needle", "blob.bin"], /binary file \(binary data, 2\.9 KiB\)/],
    [["scroll", "img.png", "+"], /binary file \(PNG image/],
  ];
  for (const [args, re] of cases) {
    const r = await rt(args, { cwd: root });
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, re, args.join(" "));
    assert.equal(r.stdout, "");
  }
});

test("read --ids and rt call refuse binary files the same way", async () => {
  const root = binTree();
  const { results } = await rtBatch(
    [
      { tool: "read", args: { path: "img.png", ids: true } },
      { tool: "read_file", args: { path: "blob.bin" } },
      { tool: "open_file_chunk", args: { path: "ctrl.dat" } },
    ],
    { cwd: root },
  );
  assert.match(results[0].error, /img\.png is an image: ids applies only to text files/);
  assert.match(results[1].error, /blob\.bin: binary file \(binary data/);
  assert.match(results[2].error, /ctrl\.dat: binary file \(binary data/);
  for (const r of results) assert.equal(r.error_type, "tool");
});

test("grep skips binary files; text files still match", async () => {
  const root = binTree();
  const r = await rt(["grep", "needle"], { cwd: root });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "text.txt:1: a needle in text\n");
  assert.match(r.stderr, /^rt grep: \(3 binary files with matches not shown: /, "named on standard error");
  const l = await rt(["grep", "needle", "-l"], { cwd: root });
  assert.equal(l.stdout, "text.txt\n");
  const c = await rt(["grep", "needle", "-c"], { cwd: root });
  assert.equal(c.stdout, "text.txt:1\n");
});
