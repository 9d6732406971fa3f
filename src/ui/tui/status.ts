// The status line: model, approval mode, session tokens and the share of the
// context window they fill, cost when prices are known, and what the agent is
// doing with its elapsed time (`Running bash: npm test… 12s`).
import type { UsageTotals } from "../../agent/events.js";
import type { Operation } from "./conversation.js";
import type { Palette } from "./palette.js";
import { truncate } from "./lines.js";
import { cacheNote } from "../sessionList.js";

export interface StatusFigures {
  model: string;
  approval: string;
  usage: UsageTotals | undefined;
  cost: number | undefined;
  /** Tokens the next request will take, and the context window. */
  contextTokens: number | undefined;
  contextWindow: number | undefined;
  operation: Operation | undefined;
  now: number;
  /** A short message replacing the hints (for example "Ctrl-C again to quit"). */
  flash?: string;
}

const compact = (n: number) =>
  n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

export function statusLine(s: StatusFigures, p: Palette, width: number): string {
  const parts = [s.model, s.approval];
  if (s.usage)
    parts.push(
      `${compact(s.usage.input_tokens)} in${cacheNote(s.usage, compact)} / ${compact(s.usage.output_tokens)} out`,
    );
  if (s.contextTokens !== undefined && s.contextWindow)
    parts.push(`context ${Math.min(100, Math.round((100 * s.contextTokens) / s.contextWindow))}%`);
  if (s.cost !== undefined) parts.push(`$${s.cost.toFixed(4)}`);
  const left = parts.join(" · ");
  const elapsed = s.operation
    ? `${s.operation.label} ${Math.max(0, Math.floor((s.now - s.operation.since) / 1000))}s`
    : "";
  let right = s.flash ?? (s.operation ? `${elapsed} · Esc interrupts` : "/help · Ctrl-C twice quits");
  // A narrow terminal keeps the figures and drops the hints first.
  if (!s.flash && left.length + right.length + 1 > width) right = s.operation ? elapsed : "/help";
  const room = width - right.length - 1;
  if (room < 10) return truncate(right, width);
  const l = truncate(left, room);
  return (
    p.dim(l) + " ".repeat(Math.max(1, width - l.length - right.length)) + (s.operation ? p.yellow(right) : p.dim(right))
  );
}
