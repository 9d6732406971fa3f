// PDFs for read: the text of chosen pages, and pages rendered as
// PNG images, with Mozilla's pdf.js (pdfjs-dist, its Node build). pdf.js is
// imported on first use only. Rendering needs a canvas: pdf.js takes
// @napi-rs/canvas (prebuilt inside its npm packages) when it is installed.
import { createRequire } from "node:module";
import path from "node:path";
import zlib from "node:zlib";
import { ToolError } from "../base/errors.js";
import { IMAGE_MAX_PIXELS, PDF_MAX_INFLATED_BYTES, PDF_STREAM_MAX_INFLATED_BYTES } from "../base/limits.js";

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
type PdfDocumentProxy = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;

let pdfjsModule: Promise<PdfJs> | undefined;
function loadPdfJs(): Promise<PdfJs> {
  pdfjsModule ??= import("pdfjs-dist/legacy/build/pdf.mjs");
  return pdfjsModule;
}

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

/** Opens a PDF from its bytes; an encrypted, corrupt or non-PDF file is a ToolError that says so. */
export async function openPdf(name: string, bytes: Buffer): Promise<PdfDocument> {
  await checkPdfBudget(name, bytes);
  const pdfjs = await loadPdfJs();
  // pdf.js takes ownership of (and detaches) the array it is given: a copy keeps the caller's buffer intact.
  const data = new Uint8Array(bytes);
  const task = pdfjs.getDocument({
    data,
    ...pdfjsDataDirs(),
    isEvalSupported: false,
    verbosity: 0,
    stopAtErrors: false,
    maxImageSize: IMAGE_MAX_PIXELS,
  });
  let doc: PdfDocumentProxy;
  try {
    doc = await task.promise;
  } catch (e) {
    await task.destroy().catch(() => undefined);
    const err = e as Error & { name?: string };
    if (err.name === "PasswordException")
      throw new ToolError(
        `${name}: the PDF is encrypted with a password; rt cannot read it (decrypt it first, e.g. qpdf --decrypt --password=... in.pdf out.pdf)`,
      );
    if (err.name === "InvalidPDFException")
      throw new ToolError(`${name}: not a valid PDF (${err.message}); the file may be corrupt or truncated`);
    throw new ToolError(`${name}: pdf.js could not open the PDF (${err.message})`);
  }
  return {
    pageCount: doc.numPages,
    async pageText(n) {
      const page = await doc.getPage(n);
      try {
        const content = await page.getTextContent();
        let text = "";
        for (const item of content.items) {
          if (!("str" in item)) continue;
          text += item.str;
          if (item.hasEOL) text += "\n";
        }
        return text;
      } finally {
        page.cleanup();
      }
    },
    async renderPage(n, longEdge) {
      const page = await doc.getPage(n);
      try {
        const unit = page.getViewport({ scale: 1 });
        const scale = longEdge / Math.max(unit.width, unit.height);
        const viewport = page.getViewport({ scale });
        const width = Math.max(1, Math.round(viewport.width));
        const height = Math.max(1, Math.round(viewport.height));
        let canvasLib: typeof import("@napi-rs/canvas");
        try {
          canvasLib = await import("@napi-rs/canvas");
        } catch (e) {
          throw new ToolError(
            `${name}: rendering PDF pages needs the @napi-rs/canvas package, which did not load here (${(e as Error).message}); read the text instead (without as_images)`,
          );
        }
        const canvas = canvasLib.createCanvas(width, height);
        const context = canvas.getContext("2d");
        // White paper: a PDF page's background is transparent, which a model would see as black or checkered.
        context.fillStyle = "#ffffff";
        context.fillRect(0, 0, width, height);
        await page.render({
          canvas: canvas as unknown as HTMLCanvasElement,
          canvasContext: context as unknown as CanvasRenderingContext2D,
          viewport,
        }).promise;
        return { png: await canvas.encode("png"), width, height };
      } finally {
        page.cleanup();
      }
    },
    async close() {
      await doc.destroy();
    },
  };
}
