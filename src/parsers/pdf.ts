// PDFs for read: the text of chosen pages, and pages rendered as
// PNG images, with Mozilla's pdf.js (pdfjs-dist, its Node build). Before pdf.js sees a file, its
// streams are decoded and counted against the byte budgets (checkPdfBudget). pdf.js itself runs in
// a worker thread (pdfWorker.ts), started when a PDF is read (one is kept a while for the next
// read) and ended at its time budgets.
// Rendering needs a canvas: pdf.js takes @napi-rs/canvas (prebuilt inside its npm packages).
import { createRequire } from "node:module";
import path from "node:path";
import { Worker, type WorkerOptions } from "node:worker_threads";
import zlib from "node:zlib";
import { ToolError } from "../base/errors.js";
import {
  IMAGE_MAX_PIXELS,
  PDF_MAX_INFLATED_BYTES,
  PDF_PAGE_TIMEOUT_S,
  PDF_READ_TIMEOUT_S,
  PDF_STREAM_MAX_INFLATED_BYTES,
  PDF_WORKER_IDLE_S,
} from "../base/limits.js";
import type { PdfFailure, PdfOpenOptions, PdfReply, PdfRequest } from "./pdfWorker.js";

/** pdf.js's data folders (the 14 standard fonts, its wasm decoders), as the paths with a trailing slash it wants in Node. */
function pdfjsDataDirs(): { standardFontDataUrl: string; wasmUrl: string } {
  const base = path.dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
  return {
    standardFontDataUrl: `${path.join(base, "standard_fonts")}${path.sep}`,
    wasmUrl: `${path.join(base, "wasm")}${path.sep}`,
  };
}

/** "1-5", "3", "1-3,8,10-12" → sorted page numbers; a clear error for anything else or pages the file does not have. */
export function parsePageRange(spec: string, total: number, maxPages: number): number[] {
  const trimmed = spec.trim();
  if (!/^\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*$/.test(trimmed)) {
    throw new ToolError(`pages "${spec}" is not a page range; write "3", "1-5" or "1-3,8" (pages are numbered from 1)`);
  }
  const pages = new Set<number>();
  for (const part of trimmed.split(",")) {
    const [a, b] = part.split("-").map((s) => Number(s.trim()));
    const from = a;
    const to = b ?? a;
    if (from < 1 || to < from)
      throw new ToolError(
        `pages "${part.trim()}": a range runs from a first page (1 or more) to a last page not before it`,
      );
    if (to > total)
      throw new ToolError(
        `pages "${part.trim()}": the file has ${total} page${total === 1 ? "" : "s"}; use pages from 1 to ${total}`,
      );
    if (to - from + 1 > maxPages)
      throw new ToolError(
        `pages "${spec}": at most ${maxPages} pages per call; read "${from}-${from + maxPages - 1}" first`,
      );
    for (let p = from; p <= to; p++) pages.add(p);
  }
  if (pages.size > maxPages)
    throw new ToolError(`pages "${spec}" names ${pages.size} pages; at most ${maxPages} per call`);
  return [...pages].sort((x, y) => x - y);
}

export interface PdfDocument {
  readonly pageCount: number;
  /** The text of one page (1-based): pdf.js's text items in content order, a line break where pdf.js sees one. */
  pageText(page: number): Promise<string>;
  /** One page as a PNG whose long edge is `longEdge` pixels. */
  renderPage(page: number, longEdge: number): Promise<{ png: Buffer; width: number; height: number }>;
  close(): Promise<void>;
}

const mb = (n: number) => `${Math.round(n / (1024 * 1024)).toLocaleString("en-US")} MB`;

/** A decoder that turns chunks of a filter's input into chunks of its output, as they come. */
interface Decoder {
  push(chunk: Buffer, out: (b: Buffer) => void): void;
  end(out: (b: Buffer) => void): void;
}

/**
 * LZWDecode as pdf.js reads it (9- to 12-bit codes, 256 clears, 257 ends, EarlyChange 1 unless
 * the parameters say 0), one code at a time: a dictionary entry is at most 4,096 bytes, so a
 * stream of 12-bit codes can grow more than 2,700 times, more than Flate's 1,032.
 */
function lzwDecoder(earlyChange: number, countOnly?: (n: number) => void): Decoder {
  const values = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const prevs = new Uint16Array(4096);
  // The first byte of each entry's string: all that counting needs (no string is spelled out).
  const firsts = new Uint8Array(4096);
  for (let i = 0; i < 256; i++) {
    values[i] = i;
    lengths[i] = 1;
    firsts[i] = i;
  }
  let seq = new Uint8Array(4096);
  let seqLength = 0;
  let nextCode = 258;
  let codeLength = 9;
  let prevCode = 0;
  let bits = 0;
  let cached = 0;
  let done = false;
  return {
    push(chunk, out) {
      let o = Buffer.allocUnsafe(65536);
      let n = 0;
      for (const byte of chunk) {
        if (done) break;
        cached = ((cached << 8) | byte) & 0xffffff;
        bits += 8;
        while (bits >= codeLength && !done) {
          bits -= codeLength;
          const code = (cached >>> bits) & ((1 << codeLength) - 1);
          const hasPrev = seqLength > 0;
          if (countOnly && code !== 256 && code !== 257) {
            if (code < 256 || code < nextCode) {
              seqLength = code < 256 ? 1 : lengths[code];
            } else seqLength++;
            if (hasPrev && nextCode < 4096) {
              lengths[nextCode] = lengths[prevCode] + 1;
              firsts[nextCode] = firsts[prevCode];
              nextCode++;
              const c = nextCode + earlyChange;
              codeLength = c & (c - 1) ? codeLength : Math.min(Math.floor(Math.log2(c)) + 1, 12);
            }
            prevCode = code;
            countOnly(seqLength);
            continue;
          }
          if (code < 256) {
            seq[0] = code;
            seqLength = 1;
          } else if (code >= 258) {
            if (code < nextCode) {
              seqLength = lengths[code];
              for (let j = seqLength - 1, q = code; j >= 0; j--) {
                seq[j] = values[q];
                q = prevs[q];
              }
            } else {
              if (seqLength >= seq.length) {
                const grown = new Uint8Array(seq.length * 2);
                grown.set(seq);
                seq = grown;
              }
              seq[seqLength++] = seq[0];
            }
          } else if (code === 256) {
            codeLength = 9;
            nextCode = 258;
            seqLength = 0;
            continue;
          } else {
            done = true;
            break;
          }
          if (hasPrev && nextCode < 4096) {
            prevs[nextCode] = prevCode;
            lengths[nextCode] = lengths[prevCode] + 1;
            values[nextCode] = seq[0];
            firsts[nextCode] = firsts[prevCode];
            nextCode++;
            const c = nextCode + earlyChange;
            codeLength = c & (c - 1) ? codeLength : Math.min(Math.floor(Math.log2(c)) + 1, 12);
          }
          prevCode = code;
          if (n + seqLength > o.length) {
            out(o.subarray(0, n));
            o = Buffer.allocUnsafe(Math.max(65536, seqLength));
            n = 0;
          }
          o.set(seq.subarray(0, seqLength), n);
          n += seqLength;
        }
      }
      if (n > 0) out(o.subarray(0, n));
    },
    end() {},
  };
}

/** RunLengthDecode: a length byte n < 128 copies n + 1 bytes, n > 128 repeats the next byte 257 - n times. */
function runLengthDecoder(): Decoder {
  let literal = 0;
  let repeat = 0;
  let done = false;
  return {
    push(chunk, out) {
      const parts: Buffer[] = [];
      for (let i = 0; i < chunk.length && !done; i++) {
        const b = chunk[i];
        if (literal > 0) {
          const take = Math.min(literal, chunk.length - i);
          parts.push(chunk.subarray(i, i + take));
          literal -= take;
          i += take - 1;
        } else if (repeat > 0) {
          parts.push(Buffer.alloc(repeat, b));
          repeat = 0;
        } else if (b < 128) literal = b + 1;
        else if (b > 128) repeat = 257 - b;
        else done = true;
      }
      if (parts.length) out(Buffer.concat(parts));
    },
    end() {},
  };
}

/** ASCIIHexDecode: pairs of hex digits, blanks ignored, `>` ends. */
function asciiHexDecoder(): Decoder {
  let high = -1;
  let done = false;
  return {
    push(chunk, out) {
      const o = Buffer.allocUnsafe(chunk.length);
      let n = 0;
      for (const c of chunk) {
        if (done) break;
        if (c === 0x3e) done = true;
        const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
        if (d < 0) continue;
        if (high < 0) high = d;
        else {
          o[n++] = (high << 4) | d;
          high = -1;
        }
      }
      if (n > 0) out(o.subarray(0, n));
    },
    end(out) {
      if (high >= 0) out(Buffer.from([high << 4]));
    },
  };
}

/** ASCII85Decode: groups of five characters `!`..`u` to four bytes, `z` for four zeros, `~>` ends. */
function ascii85Decoder(): Decoder {
  const group: number[] = [];
  let done = false;
  const flush = (o: number[], count: number): void => {
    let v = 0;
    for (let k = 0; k < 5; k++) v = v * 85 + (k < group.length ? group[k] : 84);
    for (let k = 0; k < count; k++) o.push((v >>> (24 - 8 * k)) & 0xff);
  };
  return {
    push(chunk, out) {
      const o: number[] = [];
      for (const c of chunk) {
        if (done) break;
        if (c === 0x7e) {
          done = true;
          break;
        }
        if (c === 0x7a && group.length === 0) {
          o.push(0, 0, 0, 0);
          continue;
        }
        if (c < 0x21 || c > 0x75) continue;
        group.push(c - 0x21);
        if (group.length === 5) {
          flush(o, 4);
          group.length = 0;
        }
      }
      if (o.length) out(Buffer.from(o));
    },
    end(out) {
      if (group.length > 1) {
        const o: number[] = [];
        flush(o, group.length - 1);
        out(Buffer.from(o));
      }
    },
  };
}

/**
 * What each filter grows data by at most, for a stream rt cannot decode before pdf.js does (an
 * encrypted one): Flate 1,032 times, LZW 4,096 bytes per 9-bit code, RunLength 128 per 2 bytes;
 * Brotli has no useful bound. Image filters decode to pixels, bounded by the pixel budget.
 */
const GROWTH: Record<string, number> = {
  FlateDecode: 1032,
  LZWDecode: Math.ceil((4096 * 8) / 9),
  RunLengthDecode: 64,
  BrotliDecode: Number.POSITIVE_INFINITY,
  ASCIIHexDecode: 1,
  ASCII85Decode: 1,
};

/** The filter names pdf.js accepts for each decoder, abbreviations included. */
const FILTER_NAMES: Record<string, string> = {
  Fl: "FlateDecode",
  FlateDecode: "FlateDecode",
  LZW: "LZWDecode",
  LZWDecode: "LZWDecode",
  RL: "RunLengthDecode",
  RunLengthDecode: "RunLengthDecode",
  AHx: "ASCIIHexDecode",
  ASCIIHexDecode: "ASCIIHexDecode",
  A85: "ASCII85Decode",
  ASCII85Decode: "ASCII85Decode",
  BrotliDecode: "BrotliDecode",
};

/**
 * How many bytes a stream's data decodes to through its chain of filters (Flate, LZW,
 * RunLength, ASCIIHex, ASCII85, Brotli; the chain stops at an image filter or one pdf.js does
 * not know), counted as it goes and never held: over `budget` it is stopped and the answer is
 * budget + 1. A filter that fails (data that is not what it says) ends the chain there, with
 * what came out before the failure counted, as pdf.js reads it.
 */
export function decodedSize(data: Buffer, filters: string[], earlyChange: number, budget: number): Promise<number> {
  return new Promise((resolve) => {
    let size = 0;
    let done = false;
    const streams: zlib.Inflate[] = [];
    const finish = (n: number): void => {
      if (done) return;
      done = true;
      for (const z of streams) z.destroy();
      resolve(n);
    };
    const count = (b: Buffer, length = b.length): void => {
      if (done) return;
      size += length;
      if (size > budget) finish(budget + 1);
    };
    // Stages from the last to the first: each is a function taking a chunk of its input.
    // `length`: how much the chunk stands for when only its length was computed (it is then empty).
    type Stage = { write: (b: Buffer, length?: number) => void; end: () => void };
    let next: Stage = { write: (b, length) => count(b, length), end: () => finish(size) };
    for (let i = filters.length - 1; i >= 0; i--) {
      // pdf.js holds each filter's whole output: an intermediate one counts against the budget too.
      const downstream = next;
      let produced = 0;
      const after: Stage = {
        write: (b, length = b.length) => {
          if (done) return;
          produced += length;
          if (produced > budget) finish(budget + 1);
          else downstream.write(b, length);
        },
        end: () => downstream.end(),
      };
      const name = filters[i];
      if (name === "FlateDecode" || name === "BrotliDecode") {
        const z =
          name === "FlateDecode"
            ? zlib.createInflate({ chunkSize: 64 * 1024 })
            : zlib.createBrotliDecompress({ chunkSize: 64 * 1024 });
        streams.push(z as zlib.Inflate);
        z.on("data", (c: Buffer) => after.write(c));
        z.on("end", () => after.end());
        z.on("error", () => after.end());
        next = { write: (b) => z.write(b), end: () => z.end() };
      } else {
        // The last filter's output is only counted: LZW then adds up lengths, spelling out nothing.
        const d =
          name === "LZWDecode"
            ? lzwDecoder(earlyChange, i === filters.length - 1 ? (n) => after.write(Buffer.alloc(0), n) : undefined)
            : name === "RunLengthDecode"
              ? runLengthDecoder()
              : name === "ASCIIHexDecode"
                ? asciiHexDecoder()
                : ascii85Decoder();
        next = {
          write: (b) => d.push(b, after.write),
          end: () => {
            d.end(after.write);
            after.end();
          },
        };
      }
    }
    // In slices, so that a zlib stage downstream is fed as it drains.
    const first = next;
    for (let at = 0; at < data.length && !done; at += 1 << 20) first.write(data.subarray(at, at + (1 << 20)));
    if (!done) first.end();
  });
}

/** A PDF name with its #xx escapes undone (`/Fl#61teDecode` is /FlateDecode to pdf.js). */
function pdfName(raw: string): string {
  return raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

/**
 * The filter chain of a stream dictionary, as pdf.js reads it: /F before /Filter, a name or an
 * array of names; a value that is not (an indirect reference) is undefined.
 */
function filterChain(dict: string): string[] | undefined {
  const entry = /\/(F|Filter)(?![\w#])\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+|\d+\s+\d+\s+R)?/g;
  let found: string | undefined;
  let viaF = false;
  for (let m = entry.exec(dict); m; m = entry.exec(dict)) {
    if (m[1] === "F" && !viaF) {
      found = m[2] ?? "";
      viaF = true;
    } else if (m[1] === "Filter" && !viaF) found = m[2] ?? "";
  }
  if (found === undefined) return [];
  if (/R$/.test(found) || found === "") return undefined;
  const names = found.match(/\/[^\s/[\]<>()]+/g) ?? [];
  if (found.startsWith("[") && /\d+\s+\d+\s+R/.test(found)) return undefined;
  return names.map((n) => pdfName(n.slice(1)));
}

/**
 * Refuses a PDF whose streams decode beyond the budgets, or that holds an image over the pixel
 * budget, before pdf.js (which decodes a stream whole, in memory, and images whole) sees it.
 * Each `stream ... endstream` after a dictionary is run through its filters (FlateDecode,
 * LZWDecode, RunLengthDecode, ASCIIHex, ASCII85, Brotli) and counted, not kept: a 1 MB stream
 * of zeros inflates to a gigabyte. An encrypted PDF's streams cannot be decoded without its key:
 * each counts at the most its filters can grow it, so that a bomb is refused there too.
 */
export async function checkPdfBudget(name: string, bytes: Buffer): Promise<void> {
  const text = bytes.toString("latin1");
  const encrypted = /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/.test(text);
  // pdf.js takes `stream`, then anything up to the end of its line, then the data.
  const streamStart = /stream[^\r\n]*(?:\r\n|\n|\r)/g;
  let total = 0;
  for (let m = streamStart.exec(text); m; m = streamStart.exec(text)) {
    if (text.startsWith("end", m.index - 3)) continue;
    // The dictionary right before `stream` (blanks and comments may sit between them).
    const before = text.slice(Math.max(m.index - 4096, 0), m.index).replace(/(?:\s|%[^\r\n]*)+$/, "");
    if (!before.endsWith(">>")) continue;
    const dictFrom = Math.max(before.lastIndexOf("obj"), 0);
    const dict = before.slice(dictFrom);
    const start = m.index + m[0].length;
    let end = text.indexOf("endstream", start);
    if (end < 0) end = text.length;
    // Not skipped past: pdf.js reads objects where the cross-reference table says, which may lie
    // inside what this scan took for another stream's data.
    streamStart.lastIndex = start;
    if (/\/Subtype\s*\/Image/.test(dict)) {
      const w = Number(/\/Width\s+(\d+)/.exec(dict)?.[1] ?? 0);
      const h = Number(/\/Height\s+(\d+)/.exec(dict)?.[1] ?? 0);
      if (w * h > IMAGE_MAX_PIXELS) {
        throw new ToolError(
          `${name}: the PDF holds a ${w}x${h}-pixel image, over rt's budget of ${IMAGE_MAX_PIXELS.toLocaleString("en-US")} pixels for one image; it was not opened`,
        );
      }
    }
    const chain = filterChain(dict);
    if (chain === undefined) {
      throw new ToolError(
        `${name}: a stream at offset ${start} names its filters indirectly, which rt cannot check against its budget of ${mb(PDF_STREAM_MAX_INFLATED_BYTES)} a stream; the PDF was not opened (rewrite it, e.g. qpdf in.pdf out.pdf)`,
      );
    }
    const decoders: string[] = [];
    for (const f of chain) {
      const known = FILTER_NAMES[f];
      if (!known) break; // an image filter, or one pdf.js leaves as it is
      decoders.push(known);
    }
    const earlyChange = /\/EarlyChange\s+0/.test(dict) ? 0 : 1;
    const data = bytes.subarray(start, end);
    let size: number;
    if (decoders.length === 0) size = data.length;
    else if (encrypted) {
      const growth = decoders.reduce((g, f) => g * GROWTH[f], 1);
      size = data.length * growth > PDF_STREAM_MAX_INFLATED_BYTES ? Number.POSITIVE_INFINITY : data.length * growth;
      if (size === Number.POSITIVE_INFINITY) {
        throw new ToolError(
          `${name}: the PDF is encrypted, and its stream of ${data.length.toLocaleString("en-US")} bytes at offset ${start} (${decoders.join(", ")}) could decode to more than ${mb(PDF_STREAM_MAX_INFLATED_BYTES)}, rt's budget for one PDF stream, which rt cannot check without decrypting it; it was not opened (decrypt it first, e.g. qpdf --decrypt in.pdf out.pdf)`,
        );
      }
    } else size = await decodedSize(data, decoders, earlyChange, PDF_STREAM_MAX_INFLATED_BYTES);
    if (size > PDF_STREAM_MAX_INFLATED_BYTES) {
      throw new ToolError(
        `${name}: a stream of ${data.length.toLocaleString("en-US")} bytes at offset ${start} inflates to more than ${mb(PDF_STREAM_MAX_INFLATED_BYTES)}, rt's budget for one PDF stream; the PDF was not opened`,
      );
    }
    total += size;
    if (total > PDF_MAX_INFLATED_BYTES) {
      throw new ToolError(
        `${name}: the PDF's streams ${encrypted ? "could decode" : "inflate"} to more than ${mb(PDF_MAX_INFLATED_BYTES)}, rt's budget for one PDF; it was not opened (${encrypted ? "decrypt it first, e.g. qpdf --decrypt in.pdf out.pdf, then " : ""}split it, e.g. qpdf in.pdf --pages . 1-50 -- part.pdf)`,
      );
    }
  }
}

/**
 * Starts pdf.js's worker. Built, it is dist/pdf-worker.js, an entry of its own, while this code sits
 * in dist/cli.js, dist/index.js or a chunk in dist/chunks/. From source (the tests run src/ under
 * tsx), Node 20 does not run the parent's `--import tsx` in a worker: the worker registers tsx
 * itself, then imports pdfWorker.ts. It imports pdf.js's two modules before that, as they are:
 * through tsx's hooks they cost seconds of CPU more, in every worker.
 */
function startWorker(): Worker {
  const options: WorkerOptions = { workerData: { rtPdfWorker: true } };
  if (!import.meta.url.endsWith(".ts")) {
    const here = new URL(".", import.meta.url);
    return new Worker(
      new URL(here.pathname.endsWith("/chunks/") ? "../pdf-worker.js" : "./pdf-worker.js", here),
      options,
    );
  }
  const url = (specifier: string) => JSON.stringify(import.meta.resolve(specifier));
  const entry = JSON.stringify(new URL("./pdfWorker.ts", import.meta.url).href);
  const pdfjs = [url("pdfjs-dist/legacy/build/pdf.mjs"), url("pdfjs-dist/legacy/build/pdf.worker.mjs")];
  const boot = `Promise.all([import(${pdfjs[0]}), import(${pdfjs[1]})])
    .then(() => import(${url("tsx/esm/api")}))
    .then((tsx) => { tsx.register(); return import(${entry}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/**
 * The time budgets of one PDF read: each request to pdf.js (opening, one page), the read in all,
 * and the idle worker's wait.
 */
export interface PdfTimeBudget {
  pageSeconds: number;
  readSeconds: number;
  /** How long a worker that finished a read waits for the next one before it is ended (PDF_WORKER_IDLE_S). */
  idleSeconds?: number;
}

/**
 * pdf.js ran past a time budget and its worker was ended. `page` is the page it was on (none while
 * opening the file); `reason` says which budget, for a note beside the pages read before it.
 */
export class PdfTimeout extends ToolError {
  constructor(
    name: string,
    readonly page: number | undefined,
    /** Which budget ran out: the page's own (the page is what to skip), or the whole read's. */
    readonly budget: "page" | "read",
    readonly reason: string,
  ) {
    super(`${name}: ${reason}`, { page });
  }
}

/** One pdf.js worker thread and the requests waiting for its answers. */
class PdfWorker {
  private readonly worker = startWorker();
  private readonly pending = new Map<number, (r: PdfReply | Error) => void>();
  private nextId = 1;
  /** Why the worker is gone (ended by a budget, crashed, or ended when idle); set once. */
  ended: Error | undefined;
  /** Settles when pdf.js is loaded in the worker (the answer with id 0, sent unasked). */
  readonly loaded: Promise<PdfReply | Error>;

  constructor() {
    this.loaded = new Promise((resolve) => this.pending.set(0, resolve));
    this.worker.on("message", (reply: PdfReply) => {
      const settle = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      settle?.(reply);
    });
    this.worker.on("error", (e) => this.end(new ToolError(`pdf.js failed (${e.message})`)));
    this.worker.on("exit", () => this.end(new ToolError("pdf.js's worker ended before it answered")));
    // A worker never keeps rt's process alive on its own (an idle one is not waited for at exit);
    // after the listeners, which would otherwise hold it.
    this.worker.unref();
  }

  /**
   * Ends the worker (terminating whatever it runs); every waiting request gets `why`.
   * Settles when the thread is gone.
   */
  end(why: Error): Promise<number> {
    this.ended ??= why;
    for (const settle of this.pending.values()) settle(this.ended);
    this.pending.clear();
    if (idle?.worker === this) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
    return this.worker.terminate();
  }

  /** Sends a request and gives its answer, or the error that ended the worker meanwhile. */
  send(
    req: DistributiveOmit<PdfRequest, "id">,
    transfer?: ArrayBuffer[],
  ): { id: number; answer: Promise<PdfReply | Error> } {
    const id = this.nextId++;
    const answer = new Promise<PdfReply | Error>((resolve) => {
      if (this.ended) return resolve(this.ended);
      this.pending.set(id, resolve);
      this.worker.postMessage({ ...req, id }, transfer);
    });
    return { id, answer };
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The worker kept after a read, for the next one (loading pdf.js again costs about a second of
 * CPU): one at most, ended after its idle budget. A read that finds it busy starts another.
 */
let idle: { worker: PdfWorker; timer: NodeJS.Timeout } | undefined;

function takeWorker(): PdfWorker {
  if (idle && !idle.worker.ended) {
    const { worker, timer } = idle;
    clearTimeout(timer);
    idle = undefined;
    return worker;
  }
  return new PdfWorker();
}

function keepWorker(worker: PdfWorker, idleSeconds: number): void {
  if (worker.ended) return;
  if (idle || idleSeconds <= 0) {
    void worker.end(new ToolError("pdf.js's worker was ended"));
    return;
  }
  const timer = setTimeout(
    () => void worker.end(new ToolError("pdf.js's worker was ended when idle")),
    idleSeconds * 1000,
  );
  timer.unref();
  idle = { worker, timer };
}

/**
 * Opens a PDF from its bytes; an encrypted, corrupt or non-PDF file is a ToolError that says so.
 * pdf.js runs in a worker thread: a request (opening, one page's text, one page's image) that
 * takes longer than `budget.pageSeconds`, or goes past `budget.readSeconds` since the call, ends
 * the worker and fails with a PdfTimeout, and so does every request after it. close() hands a
 * worker that is still well to the next read (it is ended after `budget.idleSeconds` unused).
 */
export async function openPdf(
  name: string,
  bytes: Buffer,
  budget: PdfTimeBudget = { pageSeconds: PDF_PAGE_TIMEOUT_S, readSeconds: PDF_READ_TIMEOUT_S },
): Promise<PdfDocument> {
  const deadline = Date.now() + budget.readSeconds * 1000;
  await checkPdfBudget(name, bytes);
  const worker = takeWorker();

  /**
   * Waits for the answer to `step` (a page, or opening or closing the file, or loading pdf.js)
   * within the budgets: the page budget from now (not while pdf.js loads), and the read's. Over a
   * budget the worker is ended and the answer is a PdfTimeout.
   */
  const within = async (
    answer: Promise<PdfReply | Error>,
    step: number | "load" | "open" | "close",
  ): Promise<PdfReply> => {
    const left = deadline - Date.now();
    const pageMs = step === "load" ? Number.POSITIVE_INFINITY : budget.pageSeconds * 1000;
    const what =
      typeof step === "number"
        ? `page ${step}`
        : { load: "loading pdf.js", open: "opening the PDF", close: "closing the PDF" }[step];
    const page = typeof step === "number" ? step : undefined;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<PdfTimeout>((resolve) => {
      timer = setTimeout(
        () => {
          const reason =
            left < pageMs
              ? `the read took longer than ${budget.readSeconds} s, rt's budget for reading one PDF; pdf.js was stopped at ${what}`
              : `${what} took longer than ${budget.pageSeconds} s in pdf.js, rt's budget for one PDF page; it was stopped`;
          resolve(new PdfTimeout(name, page, left < pageMs ? "read" : "page", reason));
        },
        Math.max(0, Math.min(left, pageMs)),
      );
    });
    const r = await Promise.race([answer, overrun]);
    clearTimeout(timer);
    if (r instanceof PdfTimeout) {
      // The thread is normally gone at once; one stuck in native code (a canvas call) stops when
      // that returns, and the read does not wait for it beyond a second.
      await Promise.race([worker.end(r), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      throw r;
    }
    if (r instanceof ToolError) throw new ToolError(`${name}: ${r.message}`);
    if (r instanceof Error) throw r;
    return r;
  };

  const loaded = await within(worker.loaded, "load");
  if (!loaded.ok) {
    void worker.end(new ToolError("pdf.js did not load"));
    throw new ToolError(`${name}: pdf.js did not load (${loaded.message})`);
  }
  // pdf.js takes ownership of the array it is given: a copy, moved to the worker, keeps the caller's buffer intact.
  const data = new Uint8Array(bytes);
  const options: PdfOpenOptions = { ...pdfjsDataDirs(), maxImageSize: IMAGE_MAX_PIXELS };
  const opened = await within(worker.send({ op: "open", data, options }, [data.buffer]).answer, "open");
  if (!opened.ok) {
    keepWorker(worker, budget.idleSeconds ?? PDF_WORKER_IDLE_S);
    if (opened.name === "PasswordException")
      throw new ToolError(
        `${name}: the PDF is encrypted with a password; rt cannot read it (decrypt it first, e.g. qpdf --decrypt --password=... in.pdf out.pdf)`,
      );
    if (opened.name === "InvalidPDFException")
      throw new ToolError(`${name}: not a valid PDF (${opened.message}); the file may be corrupt or truncated`);
    throw new ToolError(`${name}: pdf.js could not open the PDF (${opened.message})`);
  }
  const pageCount = "pageCount" in opened ? opened.pageCount : 0;
  const failed = (r: PdfFailure): never => {
    if (r.name === "CanvasUnavailable")
      throw new ToolError(
        `${name}: rendering PDF pages needs the @napi-rs/canvas package, which did not load here (${r.message}); read the text instead (without as_images)`,
      );
    throw new ToolError(`${name}: pdf.js could not read the page (${r.message})`);
  };
  let closed = false;
  return {
    pageCount,
    async pageText(n) {
      const r = await within(worker.send({ op: "text", page: n }).answer, n);
      if (!r.ok) return failed(r);
      return "text" in r ? r.text : "";
    },
    async renderPage(n, longEdge) {
      const r = await within(worker.send({ op: "render", page: n, longEdge }).answer, n);
      if (!r.ok) return failed(r);
      if (!("png" in r)) throw new ToolError(`${name}: pdf.js's worker answered page ${n} without an image`);
      return { png: Buffer.from(r.png.buffer, r.png.byteOffset, r.png.byteLength), width: r.width, height: r.height };
    },
    async close() {
      if (closed || worker.ended) return;
      closed = true;
      try {
        await within(worker.send({ op: "close" }).answer, "close");
        keepWorker(worker, budget.idleSeconds ?? PDF_WORKER_IDLE_S);
      } catch {
        // Ended by a budget while closing: nothing is kept.
      }
    },
  };
}
