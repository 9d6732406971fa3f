// The whole screen as lines, top to bottom: the conversation (scrolled),
// the todo panel, a rule, the dialog or the prompt with its completions, and
// the status line. Pure, so every layout (80x24, 200x60, NO_COLOR) is tested
// as text; the Ink app only prints these lines.
import type { Editor } from "./editor.js";
import type { Palette } from "./palette.js";
import { truncate } from "./lines.js";
import { TUI_INPUT_MAX_ROWS, TUI_COMPLETION_ROWS, TUI_TODO_ROWS } from "../../base/limits.js";

export interface ScreenParts {
  width: number;
  height: number;
  conversation: string[];
  /** Lines scrolled back from the end (0: following the stream). */
  scrollBack: number;
  todos: string[];
  dialog?: string[];
  editor: Editor;
  completion?: { values: Array<{ value: string; note?: string }>; selected: number };
  status: string;
  palette: Palette;
  /**
   * Prompts typed during the running turn, waiting (shown dimmed under the input), each with when it goes:
   * `queued (at the next tool call)`, `queued (after the turn)`.
   */
  queued?: ReadonlyArray<{ text: string; note: string }>;
  /** A dimmed line under the input (what Enter and Tab do while a turn runs). */
  hint?: string;
}

export interface Screen {
  lines: string[];
  /** scrollBack clamped to what there is to scroll. */
  scrollBack: number;
  /** Rows the conversation got (a page for PageUp/PageDown). */
  viewRows: number;
}

/** The prompt's lines, wrapped at the width, with the cursor drawn (inverse video) where it is. */
export function editorLines(ed: Editor, p: Palette, width: number): string[] {
  const w = Math.max(4, width - 2);
  const rows: string[] = [];
  let cursorRow = 0;
  ed.lines.forEach((line, li) => {
    const chunks: string[] = [];
    for (let i = 0; i < line.length || i === 0; i += w) chunks.push(line.slice(i, i + w));
    // A cursor at the very end of a full chunk goes on a fresh row.
    if (li === ed.row && ed.col === line.length && line.length > 0 && line.length % w === 0) chunks.push("");
    chunks.forEach((chunk, ci) => {
      const start = ci * w;
      let text = chunk;
      if (
        li === ed.row &&
        ed.col >= start &&
        (ed.col < start + w || (ci === chunks.length - 1 && ed.col <= start + chunk.length))
      ) {
        const at = ed.col - start;
        const ch = chunk[at] ?? " ";
        text = chunk.slice(0, at) + p.inverse(ch) + chunk.slice(at + 1);
        cursorRow = rows.length;
      }
      rows.push((rows.length === 0 ? p.bold("❯ ") : "  ") + text);
    });
  });
  if (rows.length <= TUI_INPUT_MAX_ROWS) return rows;
  const first = Math.min(Math.max(0, cursorRow - TUI_INPUT_MAX_ROWS + 1), rows.length - TUI_INPUT_MAX_ROWS);
  return rows.slice(first, first + TUI_INPUT_MAX_ROWS);
}

export function composeScreen(s: ScreenParts): Screen {
  const p = s.palette;
  const bottom: string[] = [];
  if (s.todos.length) {
    bottom.push(p.dim("─ Todos " + "─".repeat(Math.max(0, s.width - 8))));
    bottom.push(...s.todos.slice(0, TUI_TODO_ROWS));
    if (s.todos.length > TUI_TODO_ROWS)
      bottom.push(p.dim(`  … ${s.todos.length - TUI_TODO_ROWS} more (/todos lists them)`));
  }
  bottom.push(p.dim("─".repeat(s.width)));
  if (s.dialog) bottom.push(...s.dialog);
  else {
    bottom.push(...editorLines(s.editor, p, s.width));
    for (const q of s.queued ?? [])
      bottom.push(p.dim(truncate(`  ⏎ ${q.note}: ${q.text.replace(/\s+/g, " ")}`, s.width)));
    if (s.hint) bottom.push(p.dim(truncate(`  ${s.hint}`, s.width)));
    else if (s.queued?.length)
      bottom.push(p.dim(truncate("  ↑ takes the last one back to edit · Esc then removes it", s.width)));
    if (s.completion && s.completion.values.length) {
      const { values, selected } = s.completion;
      const first = Math.min(
        Math.max(0, selected - TUI_COMPLETION_ROWS + 1),
        Math.max(0, values.length - TUI_COMPLETION_ROWS),
      );
      values.slice(first, first + TUI_COMPLETION_ROWS).forEach((c, i) => {
        const line = truncate(`  ${c.value}${c.note ? `  ${c.note}` : ""}`, s.width);
        bottom.push(first + i === selected ? p.inverse(line) : p.dim(line));
      });
    }
  }
  bottom.push(s.status);
  // On a tiny terminal the bottom part wins; the conversation keeps at least one row.
  const bottomShown = bottom.slice(Math.max(0, bottom.length - (s.height - 1)));
  const viewRows = Math.max(1, s.height - bottomShown.length);
  const total = s.conversation.length;
  const scrollBack = Math.max(0, Math.min(s.scrollBack, total - viewRows));
  const end = total - scrollBack;
  const view = s.conversation.slice(Math.max(0, end - viewRows), end);
  if (scrollBack > 0 && view.length)
    view[view.length - 1] = p.inverse(
      truncate(`  ↓ ${scrollBack} more line${scrollBack === 1 ? "" : "s"} below (End or PageDown) `, s.width),
    );
  const pad = Array.from({ length: viewRows - view.length }, () => "");
  return { lines: [...pad, ...view, ...bottomShown], scrollBack, viewRows };
}
