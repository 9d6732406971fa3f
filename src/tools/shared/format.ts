// Text shapes shared by the tools that show lines of files.
import { MAX_LINE_CHARS } from "../../base/limits.js";

/** Cuts a line longer than `max` characters and says how much was left out. */
export function cutLine(text: string, max = MAX_LINE_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [line cut: ${text.length - max} more characters]`;
}

/** `{n:>4}: text`, optionally with `[LID:xxxx]` after the number. */
export function numberedLine(n: number, text: string, id?: string): string {
  const num = String(n).padStart(4, " ");
  return id ? `${num}: [LID:${id}] ${cutLine(text)}` : `${num}: ${cutLine(text)}`;
}

export { plural } from "../../base/text.js";
