import * as z from "zod";
import { defineTool, ok, ToolError, type ToolContext, type ToolImage } from "./types.js";
import { numberedLine, plural } from "./shared/format.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";
import {
  MAX_LINE_CHARS,
  NOTEBOOK_MAX_IMAGES,
  NOTEBOOK_OUTPUT_MAX_CHARS,
  PDF_MAX_PAGES_PER_READ,
  READ_DEFAULT_LIMIT,
  READ_MAX_OUTPUT_BYTES,
} from "../base/limits.js";
import { parseNotebook, renderNotebook, type NotebookImage } from "../edit/notebook.js";
import { fitImage } from "../parsers/image.js";
import type { Workspace } from "../workspace/workspace.js";
import type { ResolvedPath } from "../workspace/paths.js";
import { readImage, readPdf } from "./shared/readMedia.js";
import { fileBinaryKind } from "../workspace/binary.js";
import type fs from "node:fs";

/** A notebook's cells in order (cells `from`..`to`, 1-based), each with its id, type, source and outputs. */
async function readNotebook(
  workspace: Workspace,
  file: ResolvedPath & { stat: fs.Stats },
  from: number | undefined,
  to: number | undefined,
  imageInput: ToolContext["imageInput"],
  cap = READ_MAX_OUTPUT_BYTES,
) {
  from ??= 1;
  const nb = parseNotebook(file.rel, workspace.readShown(file).toString("utf8"));
  const total = nb.json.cells.length;
  if (total === 0)
    return ok(`(${file.rel} is a notebook with no cells)`, {
      path: file.rel,
      cell_count: 0,
      total_cells: 0,
      truncated: false,
    });
  if (from > total)
    throw new ToolError(
      `offset ${from} is past the last cell of ${file.rel} (${plural(total, "cell")}); cells are numbered 1 to ${total}`,
    );
  const last = Math.min(total, to ?? total);
  const shown = renderNotebook(nb, { offset: from, limit: last - from + 1, outputMaxChars: NOTEBOOK_OUTPUT_MAX_CHARS });
  let text = shown.text;
  let cut = false;
  if (Buffer.byteLength(text) > cap) {
    // Cut at a cell boundary when one fits, so the next read starts at a whole cell.
    const head = Buffer.from(text).subarray(0, cap).toString("utf8");
    const end = head.lastIndexOf("\n</cell>");
    text = end > 0 ? head.slice(0, end + 8) : head;
    cut = true;
  }
  const through = from - 1 + (text.match(/^<\/cell>$/gm)?.length ?? 0);
  const truncated = cut || through < total;
  const note = truncated
    ? `\n... (showing cells ${from}-${through} of ${total}${cut ? `, output reached the ${capWords(cap)}` : ""}; use offset=${through + 1} to continue)`
    : "";
  const { images, imageNote } = await notebookImages(
    shown.images.filter((img) => img.cell <= through),
    imageInput,
  );
  return ok(
    `${file.rel}: notebook, ${plural(total, "cell")} (nbformat ${nb.json.nbformat}.${nb.json.nbformat_minor})\n${text}${note}${imageNote}`,
    {
      ...(images.length ? { images } : {}),
      path: file.rel,
      start_cell: from,
      cell_count: through - from + 1,
      total_cells: total,
      truncated,
      cell_ids: nb.json.cells
        .slice(from - 1, through)
        .map((c, i) => (typeof c.id === "string" && c.id ? c.id : `cell-${from + i}`)),
    },
  );
}

/**
 * The image outputs of the cells shown, as images for a vision model (the first
 * NOTEBOOK_MAX_IMAGES of them; an output that is not a readable image is named,
 * not fatal). Nothing for a face without images or a model without vision: the
 * text already names each image output with its size.
 */
async function notebookImages(
  found: NotebookImage[],
  input: ToolContext["imageInput"],
): Promise<{ images: ToolImage[]; imageNote: string }> {
  const none = { images: [], imageNote: "" };
  if (!found.length || !input) return none;
  const imageInput = await input();
  if (!imageInput.vision) return none;
  const images: ToolImage[] = [];
  const cells = new Set<number>();
  const skipped: string[] = [];
  for (const img of found.slice(0, NOTEBOOK_MAX_IMAGES)) {
    try {
      const fitted = await fitImage(
        `cell ${img.cell} (${img.mime} output)`,
        Buffer.from(img.base64, "base64"),
        imageInput.limits,
      );
      images.push({
        media_type: fitted.mediaType,
        data_base64: fitted.data,
        width: fitted.width,
        height: fitted.height,
      });
      cells.add(img.cell);
    } catch (e) {
      skipped.push((e as Error).message);
    }
  }
  const notes = [
    images.length
      ? `(the image outputs of ${cells.size === 1 ? "cell" : "cells"} ${[...cells].join(", ")} follow as images, in order)`
      : "",
    found.length > NOTEBOOK_MAX_IMAGES
      ? `(${found.length - NOTEBOOK_MAX_IMAGES} more image outputs not shown: at most ${NOTEBOOK_MAX_IMAGES} a read; read fewer cells)`
      : "",
    ...skipped.map((why) => `(not shown: ${why})`),
  ].filter(Boolean);
  return { images, imageNote: notes.length ? `\n${notes.join("\n")}` : "" };
}

/** The output cap in words: the tool's own (50 KB), or the caller's budget (characters; bytes of ASCII text). */
function capWords(cap: number): string {
  return cap === READ_MAX_OUTPUT_BYTES
    ? `${READ_MAX_OUTPUT_BYTES / 1024} KB cap`
    : `caller's budget of ${cap.toLocaleString("en-US")} characters`;
}

/**
 * The output cap of one read: the tool's own READ_MAX_OUTPUT_BYTES, or the budget the caller
 * passes on (the agent's, in characters): a read then ends at a line within it, with its own
 * hint, and reaches the model whole. Bytes are counted either way, so the budget holds for any text.
 */
function outputCap(budget: number | undefined): number {
  return budget !== undefined && budget > 0 ? Math.floor(budget) : READ_MAX_OUTPUT_BYTES;
}

/** Claude Code's file_path; the older start_line (its end_line is an argument of its own). */
const READ_ALIASES = { file_path: "path", start_line: "offset" } as const;

/** Room kept within the cap for the last line, the continuation hint. */
const READ_HINT_RESERVE = 120;

/** What read makes of a file: text (lines, a notebook's cells), an image, or a PDF. */
function mediaKind(file: ResolvedPath & { stat: fs.Stats }): "image" | "pdf" | undefined {
  const kind = fileBinaryKind(file.abs);
  if (kind === "PDF document") return "pdf";
  if (kind === "PNG image" || kind === "JPEG image" || kind === "GIF image") return "image";
  // WebP starts with RIFF, like WAV and AVI: its name says it is meant as an image, and its bytes are checked when read.
  if (kind === "binary data" && /\.webp$/i.test(file.rel)) return "image";
  return undefined;
}

export const readTool = defineTool({
  name: "read",
  aliases: ["read_file"],
  brief: `Read a file with line numbers: offset and limit choose the lines (default the first ${READ_DEFAULT_LIMIT}).`,
  description: `Read a file: numbered ("   12: text"), ${READ_DEFAULT_LIMIT} lines from offset, ≤${READ_MAX_OUTPUT_BYTES / 1024} KB, lines cut at ${MAX_LINE_CHARS} characters; a last line gives the next offset. .ipynb: cells (offset, limit: cells). Images come as images; a PDF as text (≤${PDF_MAX_PAGES_PER_READ} pages) or images (as_images).`,
  schema: () =>
    withArgAliases(
      READ_ALIASES,
      z
        .object({
          path: z.string().describe(`Relative to the root${aliasNote(READ_ALIASES, "path")}`),
          offset: z
            .number()
            .int()
            .min(1)
            .optional()
            .describe(`First line (default 1)${aliasNote(READ_ALIASES, "offset")}`),
          limit: z.number().int().min(1).optional().describe(`Lines (default ${READ_DEFAULT_LIMIT})`),
          end_line: z.number().int().min(1).optional().describe("Last line (instead of limit)"),
          ids: z.boolean().optional().describe("Line IDs for edit_lines"),
          pages: z.string().optional().describe('"1-5"'),
          as_images: z.boolean().optional(),
        })
        .strict(),
    ),
  cli: {
    synopsis: "rt read PATH [--offset N] [--limit N] [--ids] [--pages RANGE]",
    summary: `print a file with numbered lines (${READ_DEFAULT_LIMIT} lines / ${READ_MAX_OUTPUT_BYTES / 1024} KB at a time), optionally with line IDs; an image's type, size and pixels; a PDF's text`,
    positionals: [{ key: "path", name: "PATH", path: true }],
    options: { offset: {}, limit: {}, ids: {}, pages: {} },
  },
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace, imageInput, outputBudget }) {
    const cap = outputCap(outputBudget);
    const any = workspace.resolveFile(args.path);
    const media = mediaKind(any);
    if (media) {
      const lineArgs = (["offset", "limit", "end_line", "ids"] as const).filter((k) => args[k] !== undefined);
      if (lineArgs.length)
        throw new ToolError(
          `${any.rel} is ${media === "pdf" ? "a PDF" : "an image"}: ${lineArgs.join(", ")} ${lineArgs.length === 1 ? "applies" : "apply"} only to text files${media === "pdf" ? '; choose PDF pages with pages: "1-5"' : ""}`,
        );
      if (media === "image") {
        if (args.pages !== undefined || args.as_images !== undefined)
          throw new ToolError(`${any.rel} is an image: pages and as_images apply to PDFs`);
        return readImage(workspace, any, await imageInput?.());
      }
      return readPdf(
        workspace,
        any,
        {
          ...(args.pages !== undefined ? { pages: args.pages } : {}),
          ...(args.as_images !== undefined ? { as_images: args.as_images } : {}),
        },
        imageInput,
      );
    }
    if (args.pages !== undefined || args.as_images !== undefined)
      throw new ToolError(`pages and as_images apply to PDFs; ${any.rel} is not one (offset and limit choose lines)`);
    const file = workspace.resolveTextFile(args.path);
    if (/\.ipynb$/i.test(file.rel) && !args.ids)
      return readNotebook(
        workspace,
        file,
        args.offset,
        args.end_line ?? (args.limit !== undefined ? (args.offset ?? 1) + args.limit - 1 : undefined),
        imageInput,
        cap,
      );
    const start = args.offset ?? 1;
    if (args.end_line !== undefined) {
      if (args.end_line < start)
        throw new ToolError(
          `end_line ${args.end_line} is before the first line shown (${start}); end_line must be at least offset (start_line)`,
        );
      const span = args.end_line - start + 1;
      if (args.limit !== undefined && args.limit !== span) {
        throw new ToolError(
          `limit ${args.limit} and end_line ${args.end_line} disagree (lines ${start}-${args.end_line} are ${span}); give one of them`,
        );
      }
    }
    const limit = args.end_line !== undefined ? args.end_line - start + 1 : (args.limit ?? READ_DEFAULT_LIMIT);
    let total: number;
    let lines: string[];
    let ids: string[] | undefined;
    if (args.ids) {
      const all = workspace.linesWithIds(file, { viewed: true });
      total = all.lines.length;
      lines = all.lines.slice(start - 1, start - 1 + limit);
      ids = all.ids.slice(start - 1, start - 1 + limit);
    } else {
      const w = await workspace.window(file, start, limit, { viewed: true });
      total = w.totalLines;
      lines = w.lines;
    }
    if (total === 0) {
      return ok(`(${file.rel} is empty: 0 lines)`, {
        path: file.rel,
        line_count: 0,
        total_lines: 0,
        truncated: false,
        ...(ids ? { line_ids: [] } : {}),
      });
    }
    if (start > total) {
      throw new ToolError(
        `offset ${start} is past the end of ${file.rel} (${plural(total, "line")}); use an offset from 1 to ${total}`,
      );
    }
    const out: string[] = [];
    // Within a caller's budget, the continuation hint's line must fit too.
    let bytes = outputBudget !== undefined ? READ_HINT_RESERVE : 0;
    let cappedByBytes = false;
    for (let i = 0; i < lines.length; i++) {
      const text = numberedLine(start + i, lines[i], ids?.[i]);
      const size = Buffer.byteLength(text) + 1;
      if (bytes + size > cap && out.length > 0) {
        cappedByBytes = true;
        break;
      }
      out.push(text);
      bytes += size;
    }
    const last = start + out.length - 1;
    const truncated = last < total;
    if (truncated) {
      const why = cappedByBytes ? `output reached the ${capWords(cap)}` : `limit ${limit}`;
      out.push(`... (showing lines ${start}-${last} of ${total}, ${why}; use offset=${last + 1} to continue)`);
    }
    return ok(out.join("\n"), {
      path: file.rel,
      start_line: start,
      line_count: last - start + 1,
      total_lines: total,
      truncated,
      ...(ids ? { line_ids: ids.slice(0, last - start + 1) } : {}),
    });
  },
});
