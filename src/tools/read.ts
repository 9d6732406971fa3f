import { z } from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { numberedLine, plural } from "./format.js";
import { READ_DEFAULT_LIMIT, READ_MAX_OUTPUT_BYTES } from "../limits.js";

export const readTool = defineTool({
  name: "read",
  aliases: ["read_file"],
  description: `Read a text file with line numbers ("   12: text").
- offset: first line to show (1-based, default 1); limit: number of lines (default ${READ_DEFAULT_LIMIT}).
- Output is capped at 50 KB and lines longer than 2000 characters are cut; a trailer gives the offset to continue from.
- ids: true adds each line's persistent line ID ("   12: [LID:k3f9] text"). Pass "12:k3f9" (or "k3f9") to edit_lines: the ID keeps pointing at the same line after other edits move it.
- Binary files are refused. Prefer open path:line for a 100-line window around a known line.`,
  schema: () => z
    .object({
      path: z.string().describe("File path, relative to the workspace root"),
      offset: z.number().int().min(1).optional().describe("First line to show, 1-based (default 1)"),
      limit: z.number().int().min(1).optional().describe(`Number of lines to show (default ${READ_DEFAULT_LIMIT})`),
      ids: z.boolean().optional().describe("Show persistent line IDs as [LID:xxxx]"),
    })
    .strict(),
  readOnly: true,
  idempotent: true,
  async handler(args, { workspace }) {
    const file = workspace.resolveTextFile(args.path);
    const start = args.offset ?? 1;
    const limit = args.limit ?? READ_DEFAULT_LIMIT;
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
      return ok(`(${file.rel} is empty: 0 lines)`, { path: file.rel, line_count: 0, total_lines: 0, truncated: false, ...(ids ? { line_ids: [] } : {}) });
    }
    if (start > total) {
      throw new ToolError(`offset ${start} is past the end of ${file.rel} (${plural(total, "line")}); use an offset from 1 to ${total}`);
    }
    const out: string[] = [];
    let bytes = 0;
    let cappedByBytes = false;
    for (let i = 0; i < lines.length; i++) {
      const text = numberedLine(start + i, lines[i], ids?.[i]);
      const size = Buffer.byteLength(text) + 1;
      if (bytes + size > READ_MAX_OUTPUT_BYTES && out.length > 0) {
        cappedByBytes = true;
        break;
      }
      out.push(text);
      bytes += size;
    }
    const last = start + out.length - 1;
    const truncated = last < total;
    if (truncated) {
      const why = cappedByBytes ? "output reached the 50 KB cap" : `limit ${limit}`;
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
