// The conversation as screen lines for a given width: the view of
// conversation.ts. Each entry becomes one or more lines no wider than the
// screen (wrapped here, so scrolling can count them); long tool results,
// reasoning and finished subagents are collapsed unless `expanded`.
import type { Conversation, Entry, ToolEntry } from "./conversation.js";
import type { Palette } from "./palette.js";
import type { MarkdownRenderer } from "./markdown.js";
import type { TodoItem } from "../../agent/events.js";
import { callPreview } from "./callPreview.js";
import {
  TUI_RESULT_PREVIEW_LINES,
  TUI_DIFF_PREVIEW_LINES,
  TUI_REASONING_PREVIEW_LINES,
  TUI_RESULT_MAX_LINES,
} from "../../base/limits.js";

export interface ViewTools {
  palette: Palette;
  markdown: MarkdownRenderer;
  /** ANSI-aware hard wrap of one logical line into lines of at most `width` columns. */
  wrap: (text: string, width: number) => string[];
}

export interface ViewOptions {
  width: number;
  expanded: boolean;
  now: number;
}

/** Markdown is the costly part: one rendering per (text, width), reused while it does not change. */
export class MarkdownCache {
  private readonly cache = new Map<string, string[]>();
  lines(tools: ViewTools, text: string, width: number): string[] {
    const key = `${width}\0${text}`;
    let hit = this.cache.get(key);
    if (!hit) {
      if (this.cache.size > 500) this.cache.clear();
      hit = tools
        .markdown(text, width)
        .split("\n")
        .flatMap((l) => tools.wrap(l, width));
      this.cache.set(key, hit);
    }
    return hit;
  }
}

export function conversationLines(
  conv: Conversation,
  tools: ViewTools,
  opts: ViewOptions,
  md = new MarkdownCache(),
): string[] {
  const out: string[] = [];
  for (const e of conv.entries) {
    if (out.length && e.kind === "user") out.push("");
    entryLines(e, tools, opts, md, "", out);
  }
  return out;
}

function entryLines(
  e: Entry,
  tools: ViewTools,
  opts: ViewOptions,
  md: MarkdownCache,
  indent: string,
  out: string[],
): void {
  const { palette: p, wrap } = tools;
  const width = Math.max(10, opts.width - indent.length);
  const push = (lines: string[]) => {
    for (const l of lines) out.push(indent + l);
  };
  const wrapped = (text: string, w = width) => text.split("\n").flatMap((l) => wrap(l, w));
  switch (e.kind) {
    case "user": {
      const lines = wrapped(e.text, width - 2);
      push(lines.map((l, i) => p.bold(`${i === 0 ? "❯ " : "  "}${l}`)));
      out.push("");
      return;
    }
    case "answer":
      push(md.lines(tools, e.text, width));
      return;
    case "reasoning": {
      const lines = wrapped(e.text.trim(), width - 2);
      const shown = opts.expanded ? lines : lines.slice(0, TUI_REASONING_PREVIEW_LINES);
      push(shown.map((l) => p.dim(`∴ ${l}`)));
      if (shown.length < lines.length)
        push([p.dim(`  … ${lines.length - shown.length} more lines of reasoning (Ctrl-O shows them)`)]);
      return;
    }
    case "notice":
      push(
        wrapped(e.tone === "error" ? `rt: ${e.text}` : `[rt] ${e.text}`).map((l) =>
          e.tone === "error" ? p.red(l) : p.dim(l),
        ),
      );
      return;
    case "tool":
      toolLines(e, tools, opts, md, indent, out);
      return;
  }
}

function seconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 1000))}s`;
}

/** Tools whose result the UI shows elsewhere (todo_write's list is the todo panel): their call is one line. */
const SHOWN_ELSEWHERE = new Set(["todo_write", "TodoWrite"]);

function toolLines(
  t: ToolEntry,
  tools: ViewTools,
  opts: ViewOptions,
  md: MarkdownCache,
  indent: string,
  out: string[],
): void {
  const { palette: p, wrap } = tools;
  const width = Math.max(10, opts.width - indent.length);
  const bullet = t.state === "running" ? p.yellow("●") : t.state === "done" ? p.green("●") : p.red("●");
  // todo_write: its summary line says what changed (the panel shows the list); no result under it.
  if (SHOWN_ELSEWHERE.has(t.name) && t.state !== "failed" && t.state !== "blocked") {
    out.push(`${indent}${bullet} ${truncate(t.summary, width - 2)}`);
    return;
  }
  const title = t.subagent ? `${t.summary} · ${t.subagent.type}: ${t.subagent.description}` : t.summary;
  const head = wrap(`${title}${t.state === "running" ? p.dim(` (${seconds(opts.now - t.started)})`) : ""}`, width - 2);
  head.forEach((l, i) => out.push(indent + (i === 0 ? `${bullet} ${l}` : `  ${l}`)));
  let sub = `${indent}  ⎿ `;
  const subWidth = Math.max(10, width - 4);
  const more = `${indent}    `;

  if (t.subagent || t.children.length) {
    // A subagent's own events, nested under its task call; collapsed to a count once it is done.
    const done = t.subagent?.done === true || t.state !== "running";
    if (done && !opts.expanded) {
      const calls = t.children.filter((c) => c.kind === "tool").length;
      const u = t.subagent?.usage;
      out.push(
        p.dim(
          `${sub}${t.subagent?.success === false ? "failed" : "done"} · ${calls} tool call${calls === 1 ? "" : "s"}${u ? ` · ${u.input_tokens.toLocaleString("en-US")} in, ${u.output_tokens.toLocaleString("en-US")} out` : ""} (Ctrl-O shows them)`,
        ),
      );
      sub = more; // the report follows under the same ⎿
    } else {
      for (const c of t.children) entryLines(c, tools, opts, md, `${indent}  │ `, out);
    }
    if (!done) return;
  }

  if (t.state === "running") return;
  if (t.state === "blocked" || t.state === "failed") {
    const why = (t.error ?? t.output).split("\n").filter((l) => l.trim() !== "");
    const first = why[0] ?? "";
    const label = t.state === "blocked" ? `⊘ ${first}` : `✗ ${first}`;
    wrap(label, subWidth)
      .slice(0, opts.expanded ? undefined : 2)
      .forEach((l, i) => out.push((i === 0 ? sub : more) + p.red(l)));
    return;
  }
  const lines = t.output.replace(/\n+$/, "").split("\n");
  // A unified diff: a hunk header, or a `--- ` line with its `+++ ` line. A command's output is never
  // taken for one (rt's shell output begins `--- stdout ---`, and a command may print anything).
  const shellOutput = t.name === "bash" || t.name === "bash_output";
  const diffStart = shellOutput
    ? -1
    : lines.findIndex((l, i) => /^@@ -\d/.test(l) || (l.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")));
  if (diffStart >= 0) {
    const before = lines.slice(0, diffStart).filter((l) => l.trim() !== "");
    const diff = lines.slice(diffStart).filter((l) => !l.startsWith("--- ") && !l.startsWith("+++ "));
    out.push(sub + p.green("✓ ") + (before[0] ? truncate(before[0].replace(/^✓\s*/, ""), subWidth - 2) : "changed"));
    const shown = opts.expanded ? diff.slice(0, TUI_RESULT_MAX_LINES) : diff.slice(0, TUI_DIFF_PREVIEW_LINES);
    for (const l of shown) {
      const colour = l.startsWith("+") ? p.green : l.startsWith("-") ? p.red : l.startsWith("@@") ? p.cyan : p.dim;
      for (const w of wrap(l, subWidth)) out.push(more + colour(w));
    }
    if (shown.length < diff.length) out.push(more + p.dim(`… ${diff.length - shown.length} more diff lines (Ctrl-O)`));
    return;
  }
  // An edit whose result carries no diff: the change it made, from its arguments (old text red, new green).
  const change = /edit|write|insert/.test(t.name) ? callPreview(t.args).filter((l) => l.tone !== "plain") : [];
  if (change.length) {
    out.push(
      sub + p.green("✓ ") + truncate((lines.find((l) => l.trim() !== "") ?? "done").replace(/^✓\s*/, ""), subWidth - 2),
    );
    const shown = opts.expanded ? change.slice(0, TUI_RESULT_MAX_LINES) : change.slice(0, TUI_DIFF_PREVIEW_LINES);
    for (const l of shown)
      for (const w of wrap(l.text, subWidth)) out.push(more + (l.tone === "add" ? p.green(w) : p.red(w)));
    if (shown.length < change.length) out.push(more + p.dim(`… ${change.length - shown.length} more lines (Ctrl-O)`));
    return;
  }
  const nonEmpty = lines.filter((l) => l.trim() !== "");
  if (nonEmpty.length === 0) {
    out.push(sub + p.dim("(no output)"));
    return;
  }
  const limit = opts.expanded ? TUI_RESULT_MAX_LINES : TUI_RESULT_PREVIEW_LINES;
  const shown = lines.slice(0, limit);
  shown.forEach((l, i) => {
    const w = opts.expanded ? wrap(l, subWidth) : [truncate(l, subWidth)];
    w.forEach((x, j) => out.push((i === 0 && j === 0 ? sub : more) + p.dim(x)));
  });
  const hidden = lines.length - shown.length;
  if (hidden > 0)
    out.push(
      more +
        p.dim(
          `… +${hidden} lines${opts.expanded ? "" : " (Ctrl-O expands)"}${t.saved_output ? ` · whole output in ${t.saved_output}` : ""}`,
        ),
    );
  else if (t.saved_output) out.push(more + p.dim(`(cut; whole output in ${t.saved_output})`));
}

/** One line cut to `width` characters (tool output is plain text; no escapes to keep). */
export function truncate(s: string, width: number): string {
  const flat = s.replace(/\t/g, "  ").replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
  return flat.length > width ? `${flat.slice(0, Math.max(0, width - 1))}…` : flat;
}

/** The todo panel: one line per item, `[✓]` done, `[→]` in progress (its activeForm), `[ ]` pending. */
export function todoLines(todos: readonly TodoItem[], p: Palette, width: number): string[] {
  return todos.map((t) => {
    const text = truncate(t.status === "in_progress" ? t.activeForm : t.content, width - 4);
    if (t.status === "completed") return p.dim(`[✓] ${text}`);
    if (t.status === "in_progress") return p.yellow(`[→] ${text}`);
    return `[ ] ${text}`;
  });
}
