// What the full-screen UI shows, built from the agent's event stream and
// nothing else: the conversation (prompts, answers, reasoning, tool calls with
// their results, subagents nested under their `task` call), the todo list and
// the status line's figures. Pure data, no terminal: the view (lines.ts) turns
// it into lines, the Ink app (app.ts) draws those.
import { addUsage, zeroUsage, type AgentStreamEvent, type TodoItem, type UsageTotals } from "../../agent/events.js";
import { describeCall } from "../../agent/approval.js";
import type { TranscriptItem } from "../../agent/transcript.js";

export interface ToolEntry {
  kind: "tool";
  id: string;
  name: string;
  /** One line: `bash: npm test`, `edit src/a.ts` (describeCall). */
  summary: string;
  /** The call's arguments (parsed), for the change an edit made. */
  args: unknown;
  state: "running" | "done" | "failed" | "blocked";
  output: string;
  error?: string;
  saved_output?: string;
  started: number;
  ended?: number;
  /** Set when this call started a subagent (task): its events are the children. */
  subagent?: {
    type: string;
    description: string;
    model: string;
    done?: boolean;
    success?: boolean;
    usage?: UsageTotals;
  };
  children: Entry[];
}

export type Entry =
  | { kind: "user"; text: string }
  | { kind: "answer"; text: string }
  | { kind: "reasoning"; text: string }
  | ToolEntry
  | { kind: "notice"; text: string; tone: "info" | "error" };

/** What the status line says the agent is doing, and since when (ms since the epoch). */
export interface Operation {
  label: string;
  since: number;
}

export class Conversation {
  readonly entries: Entry[] = [];
  todos: TodoItem[] = [];
  /** Session totals from the last turn_complete (or the agent at start). */
  sessionUsage: UsageTotals | undefined;
  sessionCost: number | undefined;
  /** Tokens of the model requests of the turn running now (the session's count arrives at its end). */
  turnUsage: UsageTotals | undefined;
  operation: Operation | undefined;
  /** Bumped on every change, so a view can tell whether to redraw. */
  version = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  addUser(text: string): void {
    this.entries.push({ kind: "user", text });
    this.version++;
  }

  addNotice(text: string, tone: "info" | "error" = "info"): void {
    this.entries.push({ kind: "notice", text, tone });
    this.version++;
  }

  /** Starts an operation (a turn, a compaction) before its first event arrives. */
  begin(label: string): void {
    this.operation = { label, since: this.clock() };
    this.version++;
  }

  /** The session's tokens so far, the running turn's included. */
  get usage(): UsageTotals | undefined {
    if (!this.turnUsage) return this.sessionUsage;
    return addUsage(this.sessionUsage ?? zeroUsage(), this.turnUsage);
  }

  /** The turn ended (however): no operation any more; tool calls still running were cut short. */
  end(): void {
    this.operation = undefined;
    if (this.turnUsage) this.sessionUsage = this.usage;
    this.turnUsage = undefined;
    for (const t of allTools(this.entries))
      if (t.state === "running") {
        t.state = "failed";
        t.error = "interrupted";
        t.ended = this.clock();
      }
    this.version++;
  }

  clear(): void {
    this.entries.length = 0;
    this.version++;
  }

  /**
   * An earlier session's conversation (a resumed one), drawn by the same code
   * as it was live: prompts, answers, tool calls with their results; no
   * operation runs afterwards, and a call left without a result reads as cut short.
   */
  replay(items: readonly TranscriptItem[], omittedPrompts = 0): void {
    if (omittedPrompts > 0)
      this.addNotice(
        `${omittedPrompts} earlier prompt${omittedPrompts === 1 ? "" : "s"} of this session not shown (/export writes the whole session)`,
      );
    for (const it of items) {
      if (it.kind === "prompt") this.addUser(it.text);
      else if (it.event.type !== "turn_complete" && it.event.type !== "model_turn_end") this.apply(it.event);
    }
    this.end();
  }

  apply(ev: AgentStreamEvent): void {
    this.version++;
    const parent =
      ev.parent_tool_use_id !== undefined && ev.type !== "subagent_start" && ev.type !== "subagent_end"
        ? this.findTool(ev.parent_tool_use_id)
        : undefined;
    const list = parent ? parent.children : this.entries;
    switch (ev.type) {
      case "text":
      case "reasoning": {
        const kind = ev.type === "text" ? "answer" : "reasoning";
        const last = list[list.length - 1];
        if (last && last.kind === kind) last.text += ev.delta;
        else list.push({ kind, text: ev.delta });
        if (!parent) this.setOperation(kind === "answer" ? "Writing…" : "Thinking…");
        return;
      }
      case "tool_start": {
        const summary =
          typeof ev.args === "string" ? `${ev.name} (unparsable arguments)` : describeCall(ev.name, ev.args);
        list.push({
          kind: "tool",
          id: ev.id,
          name: ev.name,
          summary,
          args: ev.args,
          state: "running",
          output: "",
          started: this.clock(),
          children: [],
        });
        if (!parent) this.setOperation(`Running ${summary}…`);
        return;
      }
      case "tool_end": {
        const t = this.findTool(ev.id);
        if (!t) return;
        t.state = ev.success ? "done" : "failed";
        t.output = ev.output;
        if (ev.error !== undefined) t.error = ev.error;
        if (ev.saved_output !== undefined) t.saved_output = ev.saved_output;
        t.ended = this.clock();
        if (!parent && !this.anyRunning()) this.setOperation("Thinking…");
        return;
      }
      case "tool_blocked": {
        const t = this.findTool(ev.id);
        if (t) {
          t.state = "blocked";
          t.error = ev.reason;
          t.ended = this.clock();
        } else {
          const summary = typeof ev.args === "string" ? ev.name : describeCall(ev.name, ev.args);
          list.push({
            kind: "tool",
            id: ev.id,
            name: ev.name,
            summary,
            args: ev.args,
            state: "blocked",
            output: "",
            error: ev.reason,
            started: this.clock(),
            ended: this.clock(),
            children: [],
          });
        }
        return;
      }
      case "subagent_start": {
        const t = this.findTool(ev.parent_tool_use_id);
        if (t) t.subagent = { type: ev.subagent_type, description: ev.description, model: ev.model };
        return;
      }
      case "subagent_end": {
        const t = this.findTool(ev.parent_tool_use_id);
        if (t?.subagent) Object.assign(t.subagent, { done: true, success: ev.success, usage: ev.usage });
        return;
      }
      case "todos":
        this.todos = ev.todos;
        return;
      case "steered":
        // What the user typed during the turn, given to the model here: shown where the model got it.
        list.push({ kind: "user", text: ev.text });
        if (!parent) this.setOperation("Thinking…");
        return;
      case "model_turn_end":
        this.turnUsage = addUsage(this.turnUsage ?? zeroUsage(), ev.usage);
        return;
      case "notice":
        list.push({ kind: "notice", text: ev.message, tone: ev.level === "warning" ? "error" : "info" });
        return;
      case "compact_start":
        list.push({
          kind: "notice",
          text: `compacting the context (${ev.reason}): about ${fmt(ev.tokens)} of ${fmt(ev.context_window)} tokens…`,
          tone: "info",
        });
        if (!parent) this.setOperation("Compacting…");
        return;
      case "compact_end":
        list.push({
          kind: "notice",
          text: `compacted: ${fmt(ev.tokens_before)} → ${fmt(ev.tokens_after)} tokens (${ev.pruned} tool output${ev.pruned === 1 ? "" : "s"} pruned${ev.summarized ? ", older history summarized" : ""})`,
          tone: "info",
        });
        return;
      case "turn_complete":
        if (parent) return;
        this.sessionUsage = ev.session_usage;
        this.sessionCost = ev.session_cost;
        this.turnUsage = undefined;
        return;
      case "error":
        if (ev.session_usage && !parent) {
          this.sessionUsage = ev.session_usage;
          this.turnUsage = undefined;
        }
        list.push({
          kind: "notice",
          text: ev.kind === "interrupted" ? "interrupted" : `${ev.kind}: ${ev.message}`,
          tone: "error",
        });
        return;
    }
  }

  /** A tool entry by its call id, at any depth. */
  findTool(id: string): ToolEntry | undefined {
    for (const t of allTools(this.entries)) if (t.id === id) return t;
    return undefined;
  }

  private anyRunning(): boolean {
    return this.entries.some((e) => e.kind === "tool" && e.state === "running");
  }

  private setOperation(label: string): void {
    // The elapsed time is that of what is being done now (this tool call, this stretch of thinking).
    if (this.operation?.label === label) return;
    this.operation = { label, since: this.clock() };
  }
}

function* allTools(entries: Entry[]): Generator<ToolEntry> {
  for (const e of entries) {
    if (e.kind !== "tool") continue;
    yield e;
    yield* allTools(e.children);
  }
}

const fmt = (x: number) => x.toLocaleString("en-US");
