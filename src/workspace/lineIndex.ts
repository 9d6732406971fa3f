// A byte-scanning line-offset index for large files. One pass records a
// checkpoint (line number, byte offset) about every INDEX_CHECKPOINT_LINES lines;
// afterwards any window is read by seeking to the nearest checkpoint. The index
// is cached in `.rt/index/` keyed on path, size and mtime, so later processes
// skip the scan. Memory stays bounded: the file is read in fixed-size chunks.
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { INDEX_CHECKPOINT_LINES, INDEX_SCAN_CHUNK } from "../limits.js";
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
 */
function scanRange(fsm: typeof fs, file: string, from: number, to: number, every: number, chunk: number): ScanResult {
  const fd = fsm.openSync(file, "r");
  const buf = Buffer.allocUnsafe(chunk);
  const lines: number[] = [];
  const offsets: number[] = [];
  let newlines = 0;
  let pos = from;
  let lastByte = -1;
  try {
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
  } finally {
    fsm.closeSync(fd);
  }
  return { newlines, lines, offsets, lastByte };
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

const memory = new Map<string, LineIndex>();

/** The line index of `abs`, from memory, from `.rt/index/`, or by scanning (and caching) it. */
export async function getLineIndex(state: StateStore, rel: string, abs: string, st: fs.Stats): Promise<LineIndex> {
  const cached = memory.get(abs);
  if (matches(cached, st)) return cached;
  const key = StateStore.keyFor(rel);
  const stored = state.readJson<LineIndex & { path: string }>("index", `${key}.json`);
  if (matches(stored, st)) {
    memory.set(abs, stored);
    return stored;
  }
  const built = await buildLineIndex(abs, st);
  memory.set(abs, built);
  state.writeJson({ path: rel, ...built }, "index", `${key}.json`);
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
  const chunkSize = 1 << 20;
  const buf = Buffer.allocUnsafe(chunkSize);
  let carry: Buffer | null = null;
  try {
    while (out.length < count && pos < idx.size) {
      const n = fs.readSync(fd, buf, 0, chunkSize, pos);
      if (n <= 0) break;
      pos += n;
      let data = buf.subarray(0, n);
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
