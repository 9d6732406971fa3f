// Binary detection: a NUL byte in the first 8 KiB, or a sample that is mostly
// control bytes. Known formats are named from their magic numbers so the
// refusal can say what the file is.
import fs from "node:fs";
import { BINARY_SAMPLE_BYTES } from "../base/limits.js";

const MAGIC: Array<[string, number[], number?]> = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["JPEG image", [0xff, 0xd8, 0xff]],
  ["GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["PDF document", [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ["ZIP archive", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["xz archive", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["bzip2 archive", [0x42, 0x5a, 0x68]],
  ["zstd archive", [0x28, 0xb5, 0x2f, 0xfd]],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
  ["Java class file", [0xca, 0xfe, 0xba, 0xbe]],
  ["Mach-O executable", [0xcf, 0xfa, 0xed, 0xfe]],
  ["Windows executable", [0x4d, 0x5a]],
  ["7-Zip archive", [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ["tar archive", [0x75, 0x73, 0x74, 0x61, 0x72], 257],
];

function startsWith(buf: Uint8Array, magic: number[], at = 0): boolean {
  if (buf.length < at + magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (buf[at + i] !== magic[i]) return false;
  return true;
}

/** Returns a name for the kind of binary data in `sample`, or null when it looks like text. */
export function binaryKind(sample: Uint8Array): string | null {
  const head = sample.length > BINARY_SAMPLE_BYTES ? sample.subarray(0, BINARY_SAMPLE_BYTES) : sample;
  // An indexed loop: destructuring each entry made objects for every file grep shows.
  for (let i = 0; i < MAGIC.length; i++) if (startsWith(head, MAGIC[i][1], MAGIC[i][2] ?? 0)) return MAGIC[i][0];
  if (head.length === 0) return null;
  const bytes = Buffer.isBuffer(head) ? head : Buffer.from(head.buffer, head.byteOffset, head.length);
  if (bytes.indexOf(0) !== -1) return "binary data";
  // Most text has no control byte at all: each is looked for in place (memchr),
  // and only a sample with one is copied to count them. A loop in JavaScript
  // over every byte of every file a grep shows cost it several milliseconds,
  // and a copy of each sample as text cost it a garbage collection.
  let some = false;
  for (let i = 0; i < CONTROL_BYTES.length && !some; i++) some = bytes.indexOf(CONTROL_BYTES[i]) !== -1;
  if (!some) return null;
  // Counted by the regular expression engine over the bytes as latin1 text (one character per byte).
  const control = bytes.toString("latin1").match(CONTROL_BYTE_PATTERN)?.length ?? 0;
  return control / head.length > 0.1 ? "binary data" : null;
}

/** Control bytes other than NUL (checked first), backspace, tab, LF, VT, FF, CR and ESC. */
const CONTROL_BYTE = /[\x01-\x07\x0e-\x1a\x1c-\x1f]/;
/** The same bytes, for counting them all and for looking for each one. */
const CONTROL_BYTE_PATTERN = new RegExp(CONTROL_BYTE.source, "g");
const CONTROL_BYTES = Array.from({ length: 0x20 }, (_, b) => b).filter((b) =>
  CONTROL_BYTE.test(String.fromCharCode(b)),
);

/**
 * The buffer fileBinaryKind reads into, one per process: a grep checks up to
 * hundreds of files, and a fresh zeroed buffer each time cost more than the
 * reads. It is filled and judged within one synchronous call.
 */
let sampleBuffer: Buffer | undefined;

/** binaryKind of the first BINARY_SAMPLE_BYTES of a file on disk. */
export function fileBinaryKind(abs: string): string | null {
  const fd = fs.openSync(abs, "r");
  try {
    const buf = (sampleBuffer ??= Buffer.allocUnsafe(BINARY_SAMPLE_BYTES));
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return binaryKind(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
