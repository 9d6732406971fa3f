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

/**
 * How many bytes a zlib stream inflates to (through `rounds` inflaters, for a /Filter of
 * FlateDecode twice), counted as it goes and never held: over `budget` it is stopped and the
 * answer is budget + 1. Data that is not zlib (encrypted streams) counts as its own length.
 */
function inflatedSize(data: Buffer, rounds: number, budget: number): Promise<number> {
  return new Promise((resolve) => {
    const chain = Array.from({ length: rounds }, () => zlib.createInflate({ chunkSize: 64 * 1024 }));
    for (let i = 0; i + 1 < chain.length; i++) chain[i].pipe(chain[i + 1]);
    let size = 0;
    let done = false;
    const finish = (n: number) => {
      if (done) return;
      done = true;
      for (const z of chain) z.destroy();
      resolve(n);
    };
    const last = chain[chain.length - 1];
    last.on("data", (c: Buffer) => {
      size += c.length;
      if (size > budget) finish(budget + 1);
    });
    last.on("end", () => finish(size));
    // pdf.js reads what inflates before an error (a truncated stream), and so does this count.
    for (const z of chain) z.on("error", () => finish(Math.max(size, data.length)));
    chain[0].end(data);
  });
}

/**
 * Refuses a PDF whose streams inflate beyond the budgets, or that holds an image over the pixel
 * budget, before pdf.js (which inflates a stream whole, in memory, and decodes images whole)
 * sees it. Each `stream ... endstream` whose dictionary names FlateDecode is inflated and
 * counted, not kept: a 1 MB stream of zeros inflates to a gigabyte.
 */
export async function checkPdfBudget(name: string, bytes: Buffer): Promise<void> {
  const text = bytes.toString("latin1");
  const streamStart = /stream(?:\r\n|\n|\r)/g;
  let total = 0;
  for (let m = streamStart.exec(text); m; m = streamStart.exec(text)) {
    const dictFrom = Math.max(text.lastIndexOf("obj", m.index), m.index - 4096, 0);
    const dict = text.slice(dictFrom, m.index);
    if (!/>>\s*$/.test(dict)) continue; // the word "stream" inside some other text
    const start = m.index + m[0].length;
    let end = text.indexOf("endstream", start);
    if (end < 0) end = text.length;
    streamStart.lastIndex = end;
    if (/\/Subtype\s*\/Image/.test(dict)) {
      const w = Number(/\/Width\s+(\d+)/.exec(dict)?.[1] ?? 0);
      const h = Number(/\/Height\s+(\d+)/.exec(dict)?.[1] ?? 0);
      if (w * h > IMAGE_MAX_PIXELS) {
        throw new ToolError(
          `${name}: the PDF holds a ${w}x${h}-pixel image, over rt's budget of ${IMAGE_MAX_PIXELS.toLocaleString("en-US")} pixels for one image; it was not opened`,
        );
      }
    }
    const filters = /\/Filter\s*(\[[^\]]*\]|\/\w+)/.exec(dict)?.[1] ?? "";
    const names = filters.match(/\/\w+/g) ?? [];
    let flate = 0;
    while (flate < names.length && (names[flate] === "/FlateDecode" || names[flate] === "/Fl")) flate++;
    const data = bytes.subarray(start, end);
    const size = flate === 0 ? data.length : await inflatedSize(data, flate, PDF_STREAM_MAX_INFLATED_BYTES);
    if (size > PDF_STREAM_MAX_INFLATED_BYTES) {
      throw new ToolError(
        `${name}: a stream of ${data.length.toLocaleString("en-US")} bytes at offset ${start} inflates to more than ${mb(PDF_STREAM_MAX_INFLATED_BYTES)}, rt's budget for one PDF stream; the PDF was not opened`,
      );
    }
    total += size;
    if (total > PDF_MAX_INFLATED_BYTES) {
      throw new ToolError(
        `${name}: the PDF's streams inflate to more than ${mb(PDF_MAX_INFLATED_BYTES)}, rt's budget for one PDF; it was not opened (split it, e.g. qpdf in.pdf --pages . 1-50 -- part.pdf)`,
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
