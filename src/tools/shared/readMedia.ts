// read of an image or a PDF. An image goes to the model as image
// content when the face passes images (ToolContext.imageInput), fitted to the
// provider's limits; elsewhere read describes it (type, bytes, pixels). A PDF
// gives the text of the requested pages, or with as_images the pages rendered
// for a vision model.
import type fs from "node:fs";
import { ok, ToolError, type ImageInput, type ToolImage, type ToolResult } from "../types.js";
import { plural } from "./format.js";
import { formatSize } from "../../workspace/binary.js";
import { fitImage, imageInfo, imageTypeName, type ImageInfo } from "../../parsers/image.js";
import { openPdf, parsePageRange, PdfTimeout, type PdfTimeBudget } from "../../parsers/pdf.js";
import {
  PDF_IMAGES_MAX_BYTES,
  PDF_MAX_PAGES_PER_READ,
  PDF_PAGE_TIMEOUT_S,
  PDF_READ_TIMEOUT_S,
  PDF_RENDER_LONG_EDGE,
  PDF_TEXT_MAX_BYTES,
  READ_BINARY_MAX_BYTES,
} from "../../base/limits.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { ResolvedPath } from "../../workspace/paths.js";

type File = ResolvedPath & { stat: fs.Stats };

/** "PNG image, 12,345 bytes, 640x480 pixels" (and the frames of an animation). */
function describe(info: ImageInfo): string {
  const frames = info.frames > 1 ? `, ${info.frames} frames (animated: the first frame is what a model sees)` : "";
  return `${imageTypeName(info.mediaType)} image, ${info.bytes.toLocaleString("en-US")} bytes, ${info.width}x${info.height} pixels${frames}`;
}

export async function readImage(
  workspace: Workspace,
  file: File,
  imageInput: ImageInput | undefined,
): Promise<ToolResult> {
  const bytes = workspace.readBytes(file, READ_BINARY_MAX_BYTES);
  const info = await imageInfo(file.rel, bytes);
  const meta = {
    path: file.rel,
    media_type: info.mediaType,
    bytes: info.bytes,
    width: info.width,
    height: info.height,
    ...(info.frames > 1 ? { frames: info.frames } : {}),
  };
  const head = `${file.rel}: ${describe(info)}`;
  if (!imageInput) return ok(head, meta);
  if (!imageInput.vision) return ok(`${head}\n(The image itself is not shown: ${imageInput.reason}.)`, meta);
  const fitted = await fitImage(file.rel, bytes, imageInput.limits, info);
  const image: ToolImage = {
    media_type: fitted.mediaType,
    data_base64: fitted.data,
    width: fitted.width,
    height: fitted.height,
  };
  const sent = fitted.changed
    ? `\n(shown to you scaled to ${fitted.width}x${fitted.height} pixels, ${imageTypeName(fitted.mediaType)}, to fit the model's image limits)`
    : "";
  return ok(`${head}${sent}`, { ...meta, images: [image] });
}

/** Page numbers as ranges: [1,2,3,7] → "1-3,7". */
export function pageList(pages: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < pages.length; i++) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j] + 1) j++;
    parts.push(j > i ? `${pages[i]}-${pages[j]}` : `${pages[i]}`);
    i = j;
  }
  return parts.join(",");
}

/**
 * The pages still to ask for after pdf.js was stopped: those not read, less the page that ran out
 * of its own budget (read again, it would be stopped again).
 */
function pagesAfterStop(stopped: PdfTimeout, read: number[], pages: number[]): number[] {
  return pages.filter((p) => !read.includes(p) && !(stopped.budget === "page" && p === stopped.page));
}

/** "page 7 took longer than 20 s ...; pages 1-6 read; ask for pages: "8-10" next". */
function stoppedNote(stopped: PdfTimeout, read: number[], pages: number[]): string {
  const rest = pagesAfterStop(stopped, read, pages);
  return `${stopped.reason}; ${read.length === 1 ? "page" : "pages"} ${pageList(read)} read${rest.length ? `; ask for pages: "${pageList(rest)}" next` : ""}`;
}

/** pdf.js was stopped before any page was read: a failed call, naming the page and what to ask for instead. */
function stoppedWithNothing(rel: string, stopped: PdfTimeout, read: number[], pages: number[]): void {
  if (read.length > 0) return;
  const rest = pagesAfterStop(stopped, read, pages);
  throw new ToolError(
    `${rel}: ${stopped.reason}; no page was read${rest.length ? ` (ask for pages: "${pageList(rest)}" to read the others)` : ""}`,
    { stopped_at_page: stopped.page },
  );
}

export interface PdfArgs {
  pages?: string;
  as_images?: boolean;
}

export async function readPdf(
  workspace: Workspace,
  file: File,
  args: PdfArgs,
  askImageInput: (() => Promise<ImageInput>) | undefined,
  /** The images' byte budget and pdf.js's time budgets (limits.ts; tests give small ones). */
  budgets: { imagesMaxBytes?: number; time?: PdfTimeBudget } = {},
): Promise<ToolResult> {
  const imagesMaxBytes = budgets.imagesMaxBytes ?? PDF_IMAGES_MAX_BYTES;
  const time = budgets.time ?? { pageSeconds: PDF_PAGE_TIMEOUT_S, readSeconds: PDF_READ_TIMEOUT_S };
  // Asked only for as_images: the text of a PDF goes to any model.
  const imageInput = args.as_images ? await askImageInput?.() : undefined;
  if (args.as_images) {
    // Refused before any work: the answer does not depend on the file.
    if (!imageInput)
      throw new ToolError(
        `as_images: this face shows no images (the agent with a vision model and rt mcp do); read ${file.rel} without as_images for its text`,
      );
    if (!imageInput.vision)
      throw new ToolError(`as_images: ${imageInput.reason}; read ${file.rel} without as_images for its text`);
  }
  const bytes = workspace.readBytes(file, READ_BINARY_MAX_BYTES);
  const doc = await openPdf(file.rel, bytes, time);
  try {
    const total = doc.pageCount;
    if (total === 0) return ok(`${file.rel}: PDF with no pages`, { path: file.rel, total_pages: 0, pages: [] });
    const pages =
      args.pages !== undefined
        ? parsePageRange(args.pages, total, PDF_MAX_PAGES_PER_READ)
        : Array.from({ length: Math.min(total, PDF_MAX_PAGES_PER_READ) }, (_, i) => i + 1);
    const last = pages[pages.length - 1];
    const more =
      args.pages === undefined && last < total
        ? `; pages ${last + 1}-${total} not shown: ask for them with pages: "${last + 1}-${Math.min(total, last + PDF_MAX_PAGES_PER_READ)}" (at most ${PDF_MAX_PAGES_PER_READ} a call)`
        : "";
    const head = `${file.rel}: PDF, ${plural(total, "page")}; pages ${pageList(pages)}${more}`;
    if (args.as_images && imageInput?.vision) {
      const images: ToolImage[] = [];
      const rendered: number[] = [];
      const edge = Math.min(PDF_RENDER_LONG_EDGE, imageInput.limits.maxEdge);
      let bytes = 0;
      let stopped: PdfTimeout | undefined;
      for (const n of pages) {
        let page: Awaited<ReturnType<typeof doc.renderPage>>;
        try {
          page = await doc.renderPage(n, edge);
        } catch (e) {
          if (!(e instanceof PdfTimeout)) throw e;
          stopped = e;
          break;
        }
        const fitted = await fitImage(`${file.rel} page ${n}`, page.png, imageInput.limits);
        if (images.length > 0 && bytes + fitted.bytes > imagesMaxBytes) break;
        bytes += fitted.bytes;
        images.push({
          media_type: fitted.mediaType,
          data_base64: fitted.data,
          width: fitted.width,
          height: fitted.height,
        });
        rendered.push(n);
      }
      const left = pages.filter((p) => !rendered.includes(p));
      if (stopped) stoppedWithNothing(file.rel, stopped, rendered, pages);
      const capNote = stopped
        ? `; ${stoppedNote(stopped, rendered, pages)}`
        : left.length
          ? `; the images reached ${formatSize(imagesMaxBytes)} after page ${rendered[rendered.length - 1]}: ask for pages: "${pageList(left)}" next`
          : "";
      return ok(
        `${head}, as ${plural(images.length, "image")} (one a page, in order${rendered.length < pages.length ? `: pages ${pageList(rendered)}` : ""})${capNote}`,
        {
          path: file.rel,
          total_pages: total,
          pages: rendered,
          images,
          ...(left.length || more ? { truncated: true } : {}),
          ...(stopped ? { stopped_at_page: stopped.page } : {}),
        },
      );
    }
    const parts: string[] = [];
    let size = 0;
    const shown: number[] = [];
    let cut = false;
    let pageCut = false;
    let stopped: PdfTimeout | undefined;
    for (const n of pages) {
      let text: string;
      try {
        text = (await doc.pageText(n)).trimEnd();
      } catch (e) {
        if (!(e instanceof PdfTimeout)) throw e;
        stopped = e;
        break;
      }
      let block = `--- page ${n} ---\n${text === "" ? "(no text on this page: it may be a scan or a picture; as_images: true shows it to a vision model)" : text}`;
      const bytesOf = Buffer.byteLength(block) + 1;
      if (size + bytesOf > PDF_TEXT_MAX_BYTES) {
        cut = true;
        if (shown.length > 0) break;
        // One page alone over the cap: its beginning, said to be cut.
        block = Buffer.from(block)
          .subarray(0, PDF_TEXT_MAX_BYTES)
          .toString("utf8")
          .replace(/\uFFFD$/, "");
        pageCut = true;
      }
      parts.push(block);
      shown.push(n);
      size += bytesOf;
      if (pageCut) break;
    }
    if (stopped) stoppedWithNothing(file.rel, stopped, shown, pages);
    const rest = pages.filter((p) => !shown.includes(p));
    const next = rest.length ? `; ask for pages: "${pageList(rest)}" next` : "";
    const cutNote = stopped
      ? `\n... (${stoppedNote(stopped, shown, pages)})`
      : !cut
        ? ""
        : pageCut
          ? `\n... (page ${shown[0]} alone is over the ${PDF_TEXT_MAX_BYTES / 1024} KB cap: its text is cut here${next})`
          : `\n... (the text reached the ${PDF_TEXT_MAX_BYTES / 1024} KB cap after page ${shown[shown.length - 1]}${next})`;
    return ok(`${head}\n${parts.join("\n")}${cutNote}`, {
      path: file.rel,
      total_pages: total,
      pages: shown,
      truncated: cut || more !== "" || stopped !== undefined,
      ...(stopped ? { stopped_at_page: stopped.page } : {}),
    });
  } finally {
    await doc.close();
  }
}
