// The pdf.js half of reading a PDF, run in a worker thread (node:worker_threads) that rt ends
// when a page takes longer than its budget. pdf.js's operator loop yields only to microtasks, so
// on rt's own thread no timer could stop a page that makes it spin (nested forms drawn 2^20 times
// in a 3 KB file); a worker's isolate can be terminated wherever its JavaScript is.
//
// The worker loads pdf.js and says so, then answers one request at a time: open a document (its
// bytes are moved here, not copied), a page's text, a page rendered as a PNG (with
// @napi-rs/canvas), close the document. One document is open at a time; after its close the
// worker may serve the next one. It imports nothing from rt: dist/pdf-worker.js is an entry of its
// own, so that starting it loads pdf.js and nothing else. src/parsers/pdf.ts is the side rt calls.
import { parentPort, workerData } from "node:worker_threads";

export interface PdfOpenOptions {
  /** pdf.js's data folders, paths with a trailing separator. */
  standardFontDataUrl: string;
  wasmUrl: string;
  /** pdf.js's own cap on an image's pixels (rt's IMAGE_MAX_PIXELS). */
  maxImageSize: number;
}

export type PdfRequest =
  | { id: number; op: "open"; data: Uint8Array; options: PdfOpenOptions }
  | { id: number; op: "text"; page: number }
  | { id: number; op: "render"; page: number; longEdge: number }
  | { id: number; op: "close" };

/** What went wrong, as data: pdf.js's exception name (PasswordException, InvalidPDFException, ...) and message. */
export interface PdfFailure {
  id: number;
  ok: false;
  name: string;
  message: string;
}

/** The answers; id 0 is the one the worker sends unasked once pdf.js is loaded. */
export type PdfReply =
  | { id: number; ok: true; loaded: true }
  | { id: number; ok: true; pageCount: number }
  | { id: number; ok: true; text: string }
  | { id: number; ok: true; png: Uint8Array; width: number; height: number }
  | { id: number; ok: true; closed: true }
  | PdfFailure;

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
type PdfDocumentProxy = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;

async function pageText(doc: PdfDocumentProxy, n: number): Promise<string> {
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
}

async function renderPage(
  doc: PdfDocumentProxy,
  n: number,
  longEdge: number,
): Promise<{ png: Uint8Array; width: number; height: number }> {
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
      throw Object.assign(new Error((e as Error).message), { name: "CanvasUnavailable" });
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
}

function failure(id: number, e: unknown): PdfFailure {
  const err = e as Error;
  return { id, ok: false, name: String(err?.name ?? "Error"), message: String(err?.message ?? e) };
}

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  let pdfjs: PdfJs;
  try {
    pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
    // pdf.js's parsing half (its "fake worker" in Node, run on this thread): loaded now, where
    // getDocument would load it itself, so that opening a file is timed apart from loading code.
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import(
      "pdfjs-dist/legacy/build/pdf.worker.mjs" as string
    );
  } catch (e) {
    port.postMessage(failure(0, e) satisfies PdfReply);
    return;
  }
  // Loading pdf.js takes a while on a busy machine and runs no part of any file: rt's page budget starts after it.
  port.postMessage({ id: 0, ok: true, loaded: true } satisfies PdfReply);
  let doc: PdfDocumentProxy | undefined;
  const answer = async (req: PdfRequest): Promise<PdfReply> => {
    if (req.op === "open") {
      await doc?.destroy();
      doc = undefined;
      doc = await pdfjs.getDocument({
        data: req.data,
        ...req.options,
        isEvalSupported: false,
        verbosity: 0,
        stopAtErrors: false,
      }).promise;
      return { id: req.id, ok: true, pageCount: doc.numPages };
    }
    if (req.op === "close") {
      await doc?.destroy();
      doc = undefined;
      return { id: req.id, ok: true, closed: true };
    }
    if (!doc) throw new Error("no document is open");
    if (req.op === "text") return { id: req.id, ok: true, text: await pageText(doc, req.page) };
    return { id: req.id, ok: true, ...(await renderPage(doc, req.page, req.longEdge)) };
  };
  // One request at a time, in order: rt waits for each answer before it asks again.
  let queue = Promise.resolve();
  port.on("message", (req: PdfRequest) => {
    queue = queue.then(async () => {
      try {
        port.postMessage(await answer(req));
      } catch (e) {
        port.postMessage(failure(req.id, e) satisfies PdfReply);
      }
    });
  });
}

// Runs only as the worker rt starts (its workerData says so), never when merely imported.
if (parentPort && (workerData as { rtPdfWorker?: boolean } | null)?.rtPdfWorker) void main(parentPort);
