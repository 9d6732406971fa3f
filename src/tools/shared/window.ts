// The file window shared by `open` and `scroll`:
//   --- <path> (lines <start>-<end> of <total>) ---
//   <n>: text
import type { Workspace } from "../../workspace/workspace.js";
import { ok, ToolError, type ToolResult } from "../types.js";
import { cutLine, plural } from "./format.js";
import { SCROLL_CHUNK, SCROLL_OVERLAP } from "../../base/limits.js";

export async function showWindow(
  workspace: Workspace,
  path: string,
  start: number,
  count: number,
  note?: string,
  /** The line asked for, when it differs from `start` (open PATH:LINE); named in the past-the-end error. */
  asked = start,
): Promise<ToolResult> {
  const file = workspace.resolveTextFile(path);
  const w = await workspace.window(file, start, count, { viewed: true });
  if (w.totalLines === 0) {
    return ok(`--- ${file.rel} (lines 0-0 of 0) ---\n(empty file)`, {
      path: file.rel,
      start_line: 0,
      end_line: 0,
      total_lines: 0,
    });
  }
  if (start > w.totalLines) {
    throw new ToolError(
      `line ${asked} is past the end of ${file.rel} (${plural(w.totalLines, "line")}); open ${file.rel}:${w.totalLines} shows the end`,
    );
  }
  const end = start + w.lines.length - 1;
  const body = w.lines.map((l, i) => `${start + i}: ${cutLine(l)}`);
  const header = `--- ${file.rel} (lines ${start}-${end} of ${w.totalLines}) ---`;
  workspace.views.set(file.rel, { start, end, chunk: SCROLL_CHUNK, overlap: SCROLL_OVERLAP });
  const text = [header, ...body, ...(note ? [note] : [])].join("\n");
  return ok(text, { path: file.rel, start_line: start, end_line: end, total_lines: w.totalLines });
}
