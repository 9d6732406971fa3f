import * as z from "zod";
import { defineTool, ToolError } from "./types.js";
import { showWindow } from "./shared/window.js";
import { SCROLL_CHUNK, SCROLL_OVERLAP } from "../base/limits.js";

export const scrollTool = defineTool({
  name: "scroll",
  aliases: ["scroll_file"],
  description: `Show the next (+) or previous (-) ${SCROLL_CHUNK}-line window of a file after the last open or scroll of it (windows overlap by ${SCROLL_OVERLAP} lines; with none yet, + starts at line 1).`,
  schema: () =>
    z
      .object({
        path: z.string().describe("File, relative to the root"),
        direction: z.enum(["+", "-", "down", "up"]).describe('"+" (or "down"): next window; "-" (or "up"): previous'),
      })
      .strict(),
  cli: {
    summary: "show the next (+) or previous (-) window after the last open of PATH",
    positionals: [
      { key: "path", name: "PATH", path: true },
      { key: "direction", name: "+|-" },
    ],
  },
  readOnly: true,
  swe: true,
  async handler(args, { workspace }) {
    const rel = workspace.resolve(args.path).rel;
    const prev = workspace.views.get(rel);
    const forward = args.direction === "+" || args.direction === "down";
    if (!prev) return showWindow(workspace, args.path, 1, SCROLL_CHUNK);
    const chunk = prev.chunk || SCROLL_CHUNK;
    const overlap = prev.overlap ?? SCROLL_OVERLAP;
    if (forward) {
      const start = prev.start + chunk - overlap;
      const file = workspace.resolveTextFile(args.path);
      const { totalLines } = await workspace.window(file, 1, 0);
      if (start > totalLines) {
        throw new ToolError(
          `already at the end of ${rel}: lines ${prev.start}-${prev.end} of ${totalLines} were the last window`,
        );
      }
      return showWindow(workspace, args.path, start, chunk);
    }
    const start = Math.max(1, prev.start - chunk + overlap);
    const note = prev.start === 1 ? "(already at the top of the file)" : undefined;
    return showWindow(workspace, args.path, start, chunk, note);
  },
});
