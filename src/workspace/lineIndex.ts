// A byte-scanning line-offset index for large files. One pass records a
// checkpoint (line number, byte offset) about every INDEX_CHECKPOINT_LINES lines;
// afterwards any window is read by seeking to the nearest checkpoint. The index
// is cached in `.rt/index/` keyed on path, size and mtime, so later processes
// skip the scan. Memory stays bounded: the file is read in fixed-size chunks.
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { INDEX_CHECKPOINT_LINES, INDEX_SCAN_CHUNK } from "../base/limits.js";
import { StateStore } from "./state.js";

export interface LineIndex {
  version: 1;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Number of lines: newlines, plus one when the last line has none. */
  totalLines: number;
  /** checkpointLines[i] is the 1-based line that starts at byte checkpointOffsets[i]. */
  checkpointLines: number[];
  checkpointOffsets: number[];
}

interface ScanResult {
  newlines: number;
  /** Local line counts (newlines seen before the checkpoint) and byte offsets of checkpoints. */
  lines: number[];
  offsets: number[];
  lastByte: number;
}

/**
 * Counts newlines in [from, to) of the file, recording the offset just after
 * every `every`-th newline. It uses nothing from its module (fs is passed in)
 * so that its source text can run in a worker thread.
 *
 * The counting runs in a small WebAssembly function with 128-bit SIMD when the
 * engine supports it (Node 20 does): it compares 64 bytes at a time with "\n"
 * and only walks the bits of a 64-byte block when that block holds a
 * checkpoint. That is several times faster than one Buffer.indexOf() call per
 * line (BENCHMARKS.md). The chunk is read straight into the module's memory.
 * Without SIMD, the indexOf loop below does the same.
 */
function scanRange(fsm: typeof fs, file: string, from: number, to: number, every: number, chunk: number): ScanResult {
  const lines: number[] = [];
  const offsets: number[] = [];
  let newlines = 0;
  let pos = from;
  let lastByte = -1;
  // scan(len, rem, every, out) -> newlines in memory[0, len). `rem` is the number
  // of newlines since the last checkpoint; the position after each checkpoint
  // newline is stored as an i32 at out, out + 4, ... Hand-assembled; the text
  // form is in the comment at the end of this function.
  // prettier-ignore
  const head = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    0x01,
    0x09,
    0x01,
    0x60,
    0x04,
    0x7f,
    0x7f,
    0x7f,
    0x7f,
    0x01,
    0x7f, // type (i32 x4) -> i32
    0x03,
    0x02,
    0x01,
    0x00, // one function
    0x05,
    0x03,
    0x01,
    0x00,
    0x01, // memory, min 1 page
    0x07,
    0x0e,
    0x02,
    0x04,
    0x73,
    0x63,
    0x61,
    0x6e,
    0x00,
    0x00,
    0x03,
    0x6d,
    0x65,
    0x6d,
    0x02,
    0x00, // exports scan, mem
  ];
  // prettier-ignore
  const body = [
    0x04,
    0x02,
    0x7f,
    0x01,
    0x7e,
    0x02,
    0x7f,
    0x01,
    0x7b, // locals p end:i32 mask:i64 cnt c:i32 nl:v128
    0x41,
    0x0a,
    0xfd,
    0x0f,
    0x21,
    0x09, // nl = splat(10)
    0x20,
    0x00,
    0x41,
    0x40,
    0x71,
    0x21,
    0x05, // end = len & -64
    0x02,
    0x40,
    0x03,
    0x40, // block loop
    0x20,
    0x04,
    0x20,
    0x05,
    0x4f,
    0x0d,
    0x01, // p >= end: break
    0x20,
    0x04,
    0xfd,
    0x00,
    0x00,
    0x00,
    0x20,
    0x09,
    0xfd,
    0x23,
    0xfd,
    0x64,
    0xad, // bitmask(p)
    0x20,
    0x04,
    0xfd,
    0x00,
    0x00,
    0x10,
    0x20,
    0x09,
    0xfd,
    0x23,
    0xfd,
    0x64,
    0xad,
    0x42,
    0x10,
    0x86,
    0x84, // | bitmask(p+16) << 16
    0x20,
    0x04,
    0xfd,
    0x00,
    0x00,
    0x20,
    0x20,
    0x09,
    0xfd,
    0x23,
    0xfd,
    0x64,
    0xad,
    0x42,
    0x20,
    0x86,
    0x84, // | bitmask(p+32) << 32
    0x20,
    0x04,
    0xfd,
    0x00,
    0x00,
    0x30,
    0x20,
    0x09,
    0xfd,
    0x23,
    0xfd,
    0x64,
    0xad,
    0x42,
    0x30,
    0x86,
    0x84, // | bitmask(p+48) << 48
    0x22,
    0x06,
    0x50,
    0x45,
    0x04,
    0x40, // mask = ...; if mask != 0
    0x20,
    0x06,
    0x7b,
    0xa7,
    0x21,
    0x08, // c = popcnt(mask)
    0x20,
    0x01,
    0x20,
    0x08,
    0x6a,
    0x20,
    0x02,
    0x49,
    0x04,
    0x40, // if rem + c < every
    0x20,
    0x01,
    0x20,
    0x08,
    0x6a,
    0x21,
    0x01, // rem += c
    0x20,
    0x07,
    0x20,
    0x08,
    0x6a,
    0x21,
    0x07, // cnt += c
    0x05,
    0x03,
    0x40, // else: loop over the set bits
    0x20,
    0x07,
    0x41,
    0x01,
    0x6a,
    0x21,
    0x07, // cnt += 1
    0x20,
    0x01,
    0x41,
    0x01,
    0x6a,
    0x22,
    0x01,
    0x20,
    0x02,
    0x46,
    0x04,
    0x40, // if ++rem == every
    0x20,
    0x03,
    0x20,
    0x04,
    0x20,
    0x06,
    0x7a,
    0xa7,
    0x6a,
    0x41,
    0x01,
    0x6a,
    0x36,
    0x02,
    0x00, // store(out, p + ctz(mask) + 1)
    0x20,
    0x03,
    0x41,
    0x04,
    0x6a,
    0x21,
    0x03,
    0x41,
    0x00,
    0x21,
    0x01, // out += 4; rem = 0
    0x0b, // end if
    0x20,
    0x06,
    0x20,
    0x06,
    0x42,
    0x01,
    0x7d,
    0x83,
    0x22,
    0x06,
    0x50,
    0x45,
    0x0d,
    0x00, // mask &= mask - 1; again while mask
    0x0b,
    0x0b,
    0x0b, // end loop, end if/else, end if
    0x20,
    0x04,
    0x41,
    0xc0,
    0x00,
    0x6a,
    0x21,
    0x04,
    0x0c,
    0x00, // p += 64; continue
    0x0b,
    0x0b, // end loop, end block
    0x02,
    0x40,
    0x03,
    0x40, // block loop: the last < 64 bytes
    0x20,
    0x04,
    0x20,
    0x00,
    0x4f,
    0x0d,
    0x01, // p >= len: break
    0x20,
    0x04,
    0x2d,
    0x00,
    0x00,
    0x41,
    0x0a,
    0x46,
    0x04,
    0x40, // if byte(p) == 10
    0x20,
    0x07,
    0x41,
    0x01,
    0x6a,
    0x21,
    0x07, // cnt += 1
    0x20,
    0x01,
    0x41,
    0x01,
    0x6a,
    0x22,
    0x01,
    0x20,
    0x02,
    0x46,
    0x04,
    0x40, // if ++rem == every
    0x20,
    0x03,
    0x20,
    0x04,
    0x41,
    0x01,
    0x6a,
    0x36,
    0x02,
    0x00, // store(out, p + 1)
    0x20,
    0x03,
    0x41,
    0x04,
    0x6a,
    0x21,
    0x03,
    0x41,
    0x00,
    0x21,
    0x01, // out += 4; rem = 0
    0x0b,
    0x0b, // end if, end if
    0x20,
    0x04,
    0x41,
    0x01,
    0x6a,
    0x21,
    0x04,
    0x0c,
    0x00, // p += 1; continue
    0x0b,
    0x0b, // end loop, end block
    0x20,
    0x07,
    0x0b, // return cnt
  ];
  // Sizes are LEB128 numbers. (No helper function: the worker runs this function's text alone.)
  const fn: number[] = [];
  for (let n = body.length; ; n >>>= 7) {
    if (n < 128) {
      fn.push(n);
      break;
    }
    fn.push((n & 127) | 128);
  }
  fn.push(...body);
  const section: number[] = [0x0a];
  for (let n = fn.length + 1; ; n >>>= 7) {
    if (n < 128) {
      section.push(n);
      break;
    }
    section.push((n & 127) | 128);
  }
  const wasm = new Uint8Array([...head, ...section, 0x01, ...fn]); // the code section: one body
  let scan: ((len: number, rem: number, every: number, out: number) => number) | undefined;
  let memory: WebAssembly.Memory | undefined;
  const outBase = (chunk + 63) & ~63;
  try {
    if (every >= 1 && WebAssembly.validate(wasm)) {
      const inst = new WebAssembly.Instance(new WebAssembly.Module(wasm));
      memory = inst.exports.mem as WebAssembly.Memory;
      const need = outBase + (Math.floor(chunk / every) + 2) * 4;
      memory.grow(Math.ceil(need / 65536) - memory.buffer.byteLength / 65536);
      scan = inst.exports.scan as typeof scan;
    }
  } catch {
    scan = undefined;
  }
  const fd = fsm.openSync(file, "r");
  try {
    if (scan && memory) {
      const buf = Buffer.from(memory.buffer, 0, chunk);
      const out = new Int32Array(memory.buffer, outBase);
      let rem = 0;
      while (pos < to) {
        const n = fsm.readSync(fd, buf, 0, Math.min(chunk, to - pos), pos);
        if (n <= 0) break;
        const c = scan(n, rem, every, outBase);
        const k = Math.floor((rem + c) / every);
        for (let j = 0; j < k; j++) {
          lines.push(newlines - rem + (j + 1) * every);
          offsets.push(pos + out[j]);
        }
        newlines += c;
        rem = (rem + c) % every;
        lastByte = buf[n - 1];
        pos += n;
      }
    } else {
      const buf = Buffer.allocUnsafe(chunk);
      while (pos < to) {
        const n = fsm.readSync(fd, buf, 0, Math.min(chunk, to - pos), pos);
        if (n <= 0) break;
        const view = n === buf.length ? buf : buf.subarray(0, n);
        let i = view.indexOf(10);
        while (i !== -1) {
          newlines++;
          if (newlines % every === 0) {
            lines.push(newlines);
            offsets.push(pos + i + 1);
          }
          i = view.indexOf(10, i + 1);
        }
        lastByte = view[n - 1];
        pos += n;
      }
    }
  } finally {
    fsm.closeSync(fd);
  }
  return { newlines, lines, offsets, lastByte };
  /* The WebAssembly function, in text form:
  (func $scan (param $len i32) (param $rem i32) (param $every i32) (param $out i32) (result i32)
    (local $p i32) (local $end i32) (local $mask i64) (local $cnt i32) (local $c i32) (local $nl v128)
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $end (i32.and (local.get $len) (i32.const -64)))
    (block (loop
      (br_if 1 (i32.ge_u (local.get $p) (local.get $end)))
      (if (i64.ne (local.tee $mask (bitmask of 4 x 16 bytes at $p == 10, as one i64)) (i64.const 0))
        (then
          (local.set $c (i32.wrap_i64 (i64.popcnt (local.get $mask))))
          (if (i32.lt_u (i32.add (local.get $rem) (local.get $c)) (local.get $every))
            (then (rem += c) (cnt += c))
            (else (loop
              (cnt += 1)
              (if (i32.eq (local.tee $rem (i32.add (local.get $rem) (i32.const 1))) (local.get $every))
                (then (i32.store (local.get $out) (p + ctz(mask) + 1)) (out += 4) (rem = 0)))
              (br_if 0 (i64.ne (local.tee $mask (i64.and (local.get $mask) (i64.sub (local.get $mask) (i64.const 1)))) (i64.const 0))))))))
      (p += 64) (br 0)))
    (block (loop
      (br_if 1 (i32.ge_u (local.get $p) (local.get $len)))
      (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 10))
        (then (cnt += 1)
          (if (i32.eq (local.tee $rem (i32.add (local.get $rem) (i32.const 1))) (local.get $every))
            (then (i32.store (local.get $out) (p + 1)) (out += 4) (rem = 0)))))
      (p += 1) (br 0)))
    (local.get $cnt))
  */
}

/** Files at least this large are scanned by two threads, one half each. */
const PARALLEL_SCAN_BYTES = 128 * 1024 * 1024;

function scanInWorker(file: string, from: number, to: number): Promise<ScanResult> {
  const src = `const { parentPort, workerData: d } = require("node:worker_threads");
const scanRange = ${scanRange.toString()};
parentPort.postMessage(scanRange(require("node:fs"), d.file, d.from, d.to, d.every, d.chunk));`;
  return new Promise((resolve, reject) => {
    const w = new Worker(src, {
      eval: true,
      workerData: { file, from, to, every: INDEX_CHECKPOINT_LINES, chunk: INDEX_SCAN_CHUNK },
    });
    w.once("message", (m: ScanResult) => resolve(m));
    w.once("error", reject);
  });
}

export async function buildLineIndex(file: string, st: fs.Stats): Promise<LineIndex> {
  const size = st.size;
  let parts: ScanResult[];
  if (size >= PARALLEL_SCAN_BYTES) {
    const mid = Math.floor(size / 2);
    const second = scanInWorker(file, mid, size);
    const first = scanRange(fs, file, 0, mid, INDEX_CHECKPOINT_LINES, INDEX_SCAN_CHUNK);
    parts = [first, await second];
  } else {
    parts = [scanRange(fs, file, 0, size, INDEX_CHECKPOINT_LINES, INDEX_SCAN_CHUNK)];
  }
  const checkpointLines = [1];
  const checkpointOffsets = [0];
  let before = 0;
  for (const part of parts) {
    for (let k = 0; k < part.lines.length; k++) {
      const off = part.offsets[k];
      if (off >= size) continue; // a checkpoint at EOF starts no line
      checkpointLines.push(before + part.lines[k] + 1);
      checkpointOffsets.push(off);
    }
    before += part.newlines;
  }
  const last = parts[parts.length - 1].lastByte;
  const totalLines = before + (size > 0 && last !== 10 ? 1 : 0);
  return { version: 1, size, mtimeMs: st.mtimeMs, ino: st.ino, totalLines, checkpointLines, checkpointOffsets };
}

function matches(idx: LineIndex | undefined, st: fs.Stats): idx is LineIndex {
  return !!idx && idx.version === 1 && idx.size === st.size && idx.mtimeMs === st.mtimeMs && idx.ino === st.ino;
}

/**
 * Whether a stored index can describe a file of its size: checkpoints start at
 * line 1, byte 0, both strictly increase, offsets stay inside the file. (It
 * carries rt's MAC already; this guards what a MAC cannot: an index that would
 * show lines under the wrong numbers.)
 */
function wellFormed(idx: LineIndex): boolean {
  const { checkpointLines: ls, checkpointOffsets: os, totalLines, size } = idx;
  if (!Array.isArray(ls) || !Array.isArray(os) || ls.length !== os.length || ls.length === 0) return false;
  if (!Number.isSafeInteger(totalLines) || totalLines < 0 || totalLines > size + 1) return false;
  if (ls[0] !== 1 || os[0] !== 0) return false;
  for (let i = 1; i < ls.length; i++) {
    if (!Number.isSafeInteger(ls[i]) || !Number.isSafeInteger(os[i])) return false;
    if (ls[i] <= ls[i - 1] || os[i] <= os[i - 1] || os[i] >= size || ls[i] > totalLines) return false;
    if (ls[i] - ls[i - 1] > os[i] - os[i - 1]) return false; // every line takes at least its newline
  }
  return true;
}

const memory = new Map<string, LineIndex>();

/**
 * The line index of `abs`, from memory, from `.rt/index/`, or by scanning (and
 * caching) it; a scan reads `readPath` (the file as the caller opened it, e.g.
 * `/proc/self/fd/N` of a descriptor the confined writer opened), `abs` by default.
 */
export async function getLineIndex(
  state: StateStore,
  rel: string,
  abs: string,
  st: fs.Stats,
  readPath: string = abs,
): Promise<LineIndex> {
  const cached = memory.get(abs);
  if (matches(cached, st)) return cached;
  const key = StateStore.keyFor(rel);
  // Signed: an index decides which bytes are shown under which line number.
  const stored = state.readSignedJson<LineIndex & { path: string }>("index", `${key}.json`);
  if (matches(stored, st) && stored.path === rel && wellFormed(stored)) {
    memory.set(abs, stored);
    return stored;
  }
  const built = await buildLineIndex(readPath, st);
  memory.set(abs, built);
  state.writeSignedJsonBestEffort({ path: rel, ...built }, "index", `${key}.json`);
  return built;
}

/** Reads lines [start, start+count) (1-based) using the index; never reads the whole file. */
export function readIndexedLines(abs: string, idx: LineIndex, start: number, count: number): string[] {
  if (count <= 0 || start > idx.totalLines) return [];
  // Largest checkpoint at or before `start`.
  let lo = 0;
  let hi = idx.checkpointLines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (idx.checkpointLines[mid] <= start) lo = mid;
    else hi = mid - 1;
  }
  let line = idx.checkpointLines[lo];
  let pos = idx.checkpointOffsets[lo];
  const fd = fs.openSync(abs, "r");
  const out: string[] = [];
  // Small reads first (the target is usually within a checkpoint's spacing plus the window,
  // tens of KB), growing for long lines: a fresh 1 MB buffer costs `rt open` more than the read.
  let chunkSize = 64 * 1024;
  let buf = Buffer.allocUnsafe(chunkSize);
  let carry: Buffer | null = null;
  try {
    while (out.length < count && pos < idx.size) {
      const n = fs.readSync(fd, buf, 0, chunkSize, pos);
      if (n <= 0) break;
      pos += n;
      let data = buf.subarray(0, n);
      if (chunkSize < 1 << 20) {
        // The next read takes a new buffer (`data` still points into this one), four times as large.
        chunkSize *= 4;
        buf = Buffer.allocUnsafe(chunkSize);
      }
      if (carry) {
        data = Buffer.concat([carry, data]);
        carry = null;
      }
      let s = 0;
      let i = data.indexOf(10);
      while (i !== -1 && out.length < count) {
        if (line >= start) out.push(decodeLine(data, s, i));
        line++;
        s = i + 1;
        i = data.indexOf(10, s);
      }
      // A partial line at the end of the chunk is copied and completed by the next read.
      if (out.length < count && s < data.length) carry = Buffer.from(data.subarray(s));
      if (carry && carry.length > 64 * 1024 * 1024) {
        throw new Error(`line ${line} is longer than 64 MiB; refusing to load it`);
      }
    }
    if (carry && out.length < count && line >= start) out.push(decodeLine(carry, 0, carry.length));
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

function decodeLine(data: Buffer, s: number, e: number): string {
  if (e > s && data[e - 1] === 13) e--;
  return data.toString("utf8", s, e);
}
