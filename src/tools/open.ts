import * as z from "zod";
import fs from "node:fs";
import { defineTool, ToolError } from "./types.js";
import { showWindow } from "./shared/window.js";
import { aliasNote, withArgAliases } from "./shared/argAliases.js";
import { OPEN_MAX_RANGE, OPEN_WINDOW } from "../base/limits.js";

const OPEN_ALIASES = { file_path: "path" } as const;

/** Splits `path:LINE` or `path:START-END`, unless the whole string names an existing file. */
export function parseLocation(
  spec: string,
  root: string,
): { path: string; line?: number; start?: number; end?: number } {
  const m = /^(.*?):(\d+)(?:-(\d+))?$/.exec(spec);
  if (!m || m[1] === "") return { path: spec };
  try {
    if (fs.existsSync(spec.startsWith("/") ? spec : `${root}/${spec}`)) return { path: spec };
  } catch {
    /* fall through */
  }
  return m[3] === undefined
    ? { path: m[1], line: Number(m[2]) }
    : { path: m[1], start: Number(m[2]), end: Number(m[3]) };
}

export const openTool = defineTool({
  name: "open",
  aliases: ["open_file_chunk"],
  description: `Show a ${OPEN_WINDOW}-line window of a file ("--- path (lines A-B of N) ---", then "A: text"), remembered for scroll: "path" from line 1; "path:LINE" (or line) around LINE, e.g. a grep match; "path:START-END" (or start, end) that range, at most ${OPEN_MAX_RANGE} lines.`,
  schema: () =>
    withArgAliases(
      OPEN_ALIASES,
      z
        .object({
          path: z
            .string()
            .describe(`Relative to the root, may end in ":LINE" or ":START-END"${aliasNote(OPEN_ALIASES, "path")}`),
          line: z.number().int().min(1).optional().describe("Center on this line"),
          start: z.number().int().min(1).optional().describe("Range start"),
          end: z.number().int().min(1).optional().describe("Range end (inclusive)"),
        })
        .strict(),
    ),
  cli: {
    synopsis: "rt open PATH[:LINE|:START-END]",
    summary: `show a ${OPEN_WINDOW}-line window of a file (centered on LINE, or START-END up to ${OPEN_MAX_RANGE} lines)`,
    positionals: [{ key: "path", name: "PATH", path: true }],
  },
  readOnly: true,
  swe: true,
  idempotent: true,
  async handler(args, { workspace }) {
    const loc = parseLocation(args.path, workspace.root);
    const line = args.line ?? loc.line;
    const start = args.start ?? loc.start;
    const end = args.end ?? loc.end;
    if (line !== undefined && (start !== undefined || end !== undefined)) {
      throw new ToolError("give either a line to center on or a start-end range, not both");
    }
    for (const n of [line, start, end]) {
      if (n === 0) throw new ToolError(`line 0 does not exist: line numbers start at 1 (e.g. ${loc.path}:1)`);
    }
    if (start !== undefined || end !== undefined) {
      const s = start ?? 1;
      const e = end ?? s + OPEN_WINDOW - 1;
      if (e < s) throw new ToolError(`range ${s}-${e} is reversed: the end line must be at least the start line`);
      const count = Math.min(e - s + 1, OPEN_MAX_RANGE);
      const note =
        e - s + 1 > OPEN_MAX_RANGE
          ? `... (range capped at ${OPEN_MAX_RANGE} lines; open ${loc.path}:${s + count}-${e} for the rest)`
          : undefined;
      return showWindow(workspace, loc.path, s, count, note);
    }
    if (line !== undefined) {
      const s = Math.max(1, line - OPEN_WINDOW / 2);
      return showWindow(workspace, loc.path, s, line + OPEN_WINDOW / 2 - 1 - s + 1, undefined, line);
    }
    return showWindow(workspace, loc.path, 1, OPEN_WINDOW);
  },
});
