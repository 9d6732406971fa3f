// Human-readable lines for the agent's events, shared by `rt run` (progress on
// stderr) and `rt chat`. Pure: events in, text out.
import type { AgentEvent, AgentStreamEvent, UsageTotals } from "../agent/events.js";
import { describeCall } from "../agent/approval.js";
import { cacheNote } from "./sessionList.js";
import type { Transcript } from "../agent/transcript.js";

export interface Style {
  dim: (s: string) => string;
  red: (s: string) => string;
  bold: (s: string) => string;
}

export const plain: Style = { dim: (s) => s, red: (s) => s, bold: (s) => s };
export const ansi: Style = {
  dim: (s) => `\x1b[2m${s}\x1b[22m`,
  red: (s) => `\x1b[31m${s}\x1b[39m`,
  bold: (s) => `\x1b[1m${s}\x1b[22m`,
};

const n = (x: number) => x.toLocaleString("en-US");

export function usageLine(u: UsageTotals, session: UsageTotals, cost?: number, sessionCost?: number): string {
  const money = (c: number | undefined) => (c === undefined ? "" : ` · $${c.toFixed(4)}`);
  return `tokens: ${n(u.input_tokens)} in${cacheNote(u, n)}, ${n(u.output_tokens)} out${money(cost)} · session: ${n(session.input_tokens)} in${cacheNote(session, n)}, ${n(session.output_tokens)} out${money(sessionCost)}`;
}

function firstLine(s: string, max = 200): string {
  const line = s.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** One or more lines (ending in "\n") describing a non-text event; "" for text and reasoning. */
export function describeEvent(ev: AgentEvent, st: Style = plain): string {
  switch (ev.type) {
    case "text":
    case "reasoning":
      return "";
    case "tool_start":
      return (
        st.dim(
          `● ${typeof ev.args === "string" ? `${ev.name} (unparsable arguments)` : describeCall(ev.name, ev.args)}`,
        ) + "\n"
      );
    case "tool_end": {
      if (ev.success) {
        const lines = ev.output === "" ? 0 : ev.output.split("\n").length;
        return (
          st.dim(
            `  ✓ ${lines} line${lines === 1 ? "" : "s"}${ev.saved_output ? ` (cut; whole output in ${ev.saved_output})` : ""}`,
          ) + "\n"
        );
      }
      return st.red(`  ✗ ${firstLine(ev.error ?? ev.output)}`) + "\n";
    }
    case "tool_blocked":
      return st.red(`  ⊘ blocked: ${firstLine(ev.reason, 300)}`) + "\n";
    case "model_turn_end":
      // How an answer ended is news only when it did not simply finish; the error line that follows says the rest.
      return "";
    case "notice":
      return ev.level === "warning"
        ? st.red(`[rt] warning: ${ev.message}`) + "\n"
        : st.dim(`[rt] ${ev.message}`) + "\n";
    case "todos":
      return (
        ev.todos
          .map((t) =>
            st.dim(
              `  ${t.status === "completed" ? "[✓]" : t.status === "in_progress" ? "[→]" : "[ ]"} ${t.status === "in_progress" ? t.activeForm : t.content}`,
            ),
          )
          .join("\n") + "\n"
      );
    case "steered":
      // A message the user sent during the turn, given to the model after the tool results.
      return st.dim(`❯ ${firstLine(ev.text)}`) + "\n";
    case "subagent_start":
      return st.dim(`● ${ev.subagent_type}: ${ev.description} (${ev.model})`) + "\n";
    case "subagent_end":
      return (
        st.dim(
          `  ${ev.success ? "✓" : "✗"} ${ev.subagent_type} done · ${n(ev.usage.input_tokens)} in, ${n(ev.usage.output_tokens)} out`,
        ) + "\n"
      );
    case "compact_start":
      return (
        st.dim(`[rt] compacting the context (${ev.reason}): about ${n(ev.tokens)} of ${n(ev.context_window)} tokens…`) +
        "\n"
      );
    case "compact_end":
      return (
        st.dim(
          `[rt] compacted: ${n(ev.tokens_before)} → ${n(ev.tokens_after)} tokens (${ev.pruned} tool output${ev.pruned === 1 ? "" : "s"} pruned${ev.summarized ? ", older history summarized" : ""})`,
        ) + "\n"
      );
    case "turn_complete":
      return st.dim(`[${usageLine(ev.usage, ev.session_usage, ev.cost, ev.session_cost)}]`) + "\n";
    case "error":
      return st.red(`rt: ${ev.kind === "interrupted" ? "interrupted" : `${ev.kind}: ${ev.message}`}`) + "\n";
  }
}

/** A notice that must reach the user on standard error in every output mode (a hook that failed...). */
export function isWarning(ev: AgentEvent): boolean {
  return ev.type === "notice" && ev.level === "warning";
}

/**
 * describeEvent for the stream, where a subagent's events (parent_tool_use_id)
 * come nested under its task call: indented, without its text (its report is
 * the task call's result) or its usage line (subagent_end has it). Empty for
 * text and reasoning of the main agent too (the faces print those as they come).
 */
export function describeStreamEvent(ev: AgentStreamEvent, st: Style = plain): string {
  if (ev.parent_tool_use_id === undefined || ev.type === "subagent_start" || ev.type === "subagent_end")
    return describeEvent(ev, st);
  if (ev.type === "turn_complete" || ev.type === "todos") return "";
  const line = describeEvent(ev, st);
  return line === "" ? "" : line.replace(/^(?=.)/gm, "  │ ");
}

/**
 * A resumed session's conversation for the line faces, as they printed it
 * live: each prompt after `> `, the answers, and the event lines (tool calls
 * and their results, nested subagent calls, todos); reasoning only when
 * `reasoning` (a terminal).
 */
export function transcriptText(t: Transcript, st: Style = plain, reasoning = false): string {
  if (t.items.length === 0) return "";
  const out: string[] = [];
  const shown = t.items.filter((it) => it.kind === "prompt").length;
  out.push(
    st.dim(
      `[rt] earlier in this session${t.omittedPrompts ? ` (its last ${shown} prompt${shown === 1 ? "" : "s"}; ${t.omittedPrompts} before them not shown)` : ""}:`,
    ) + "\n",
  );
  let midLine = false;
  const line = (s: string) => {
    if (midLine) out.push("\n");
    midLine = false;
    out.push(s);
  };
  for (const it of t.items) {
    if (it.kind === "prompt") {
      line(`${st.bold(`> ${it.text.split("\n").join("\n  ")}`)}\n`);
      continue;
    }
    const ev = it.event;
    if (ev.type === "text" || ev.type === "reasoning") {
      if (ev.parent_tool_use_id !== undefined || (ev.type === "reasoning" && !reasoning)) continue;
      const text = ev.type === "reasoning" ? st.dim(ev.delta) : ev.delta;
      line(text);
      midLine = !ev.delta.endsWith("\n");
      continue;
    }
    const s = describeStreamEvent(ev, st);
    if (s) line(s);
  }
  if (midLine) out.push("\n");
  out.push(st.dim("[rt] (the session continues here)") + "\n");
  return out.join("");
}
