// A session's conversation as the faces showed it live, rebuilt from its log:
// the prompts, the answers (and reasoning), and the events the faces draw
// (tool calls with their results, subagents with their own calls from their
// sidechain logs, todos, notices, compactions, errors). For a face that opens
// an earlier session (rt chat --resume / --continue, /resume, rt run --resume):
// it replays these items through the same code that drew them the first time.
//
// The log keeps a tool call's result in the message that answered it (the
// tool_end record's output is left empty), so each tool_end is given back its
// output from that message: by call id for native calls, and for text mode's
// actions from the user message carrying their output, which follows it.
import type { Workspace } from "../workspace/workspace.js";
import type { AgentStreamEvent } from "./events.js";
import { readSessionRecords, readSidechains, sessionFile, type SessionRecord } from "./session.js";
import { parseUserCommandMessage } from "./userCommand.js";

export type TranscriptItem =
  /** A prompt the user typed (a `!` command reads `!COMMAND`). */
  { kind: "prompt"; text: string } | { kind: "event"; event: AgentStreamEvent };

export interface Transcript {
  items: TranscriptItem[];
  /** Prompts before the ones kept (maxPrompts): not in `items`. */
  omittedPrompts: number;
}

/** How deep a chain of branches (rewinds, --fork-session) is followed back to find subagents' logs. */
const FORK_CHAIN_MAX = 20;

/**
 * The transcript of session `sessionId` since its last /clear (as the screen
 * showed it), its last `maxPrompts` prompts with what followed them.
 */
export function sessionTranscript(ws: Workspace, sessionId: string, maxPrompts = Infinity): Transcript {
  let records: SessionRecord[];
  try {
    records = readSessionRecords(ws, sessionFile(ws, sessionId).split("/").pop()!);
  } catch {
    return { items: [], omittedPrompts: 0 };
  }
  const items = transcriptItems(records, sidechainsOf(ws, records));
  return keepLastPrompts(items, maxPrompts);
}

/** The subagent logs a session's task calls wrote, by call id: its own and those of the sessions it branched from. */
function sidechainsOf(ws: Workspace, records: SessionRecord[]): (callId: string) => SessionRecord[] | undefined {
  let found: Map<string, SessionRecord[]> | undefined;
  return (callId) => {
    if (!found) {
      found = new Map();
      let header = records[0];
      for (let depth = 0; header?.t === "session" && depth < FORK_CHAIN_MAX; depth++) {
        for (const s of readSidechains(ws, header.id))
          if (!found.has(s.link.tool_use_id)) found.set(s.link.tool_use_id, s.records);
        const from = header.forkedFrom?.session;
        if (!from) break;
        try {
          header = readSessionRecords(ws, sessionFile(ws, from).split("/").pop()!)[0];
        } catch {
          break;
        }
      }
    }
    return found.get(callId);
  };
}

/** Only the last `maxPrompts` prompts and what follows each; what came before them is counted. */
function keepLastPrompts(items: TranscriptItem[], maxPrompts: number): Transcript {
  const prompts = items.flatMap((it, k) => (it.kind === "prompt" ? [k] : []));
  if (prompts.length <= maxPrompts) return { items, omittedPrompts: 0 };
  const omitted = prompts.length - Math.max(0, maxPrompts);
  const from = maxPrompts <= 0 ? items.length : prompts[omitted];
  return { items: items.slice(from), omittedPrompts: omitted };
}

/** The items of one log (a session's, or a subagent's with `parent` set on every event). */
export function transcriptItems(
  records: readonly SessionRecord[],
  sidechain: (callId: string) => SessionRecord[] | undefined = () => undefined,
  parent?: string,
): TranscriptItem[] {
  // What the screen showed started again at the last /clear.
  let start = 0;
  records.forEach((r, k) => {
    if (r.t === "clear") start = k + 1;
  });
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const r of records)
    if (r.t === "message" && r.message.role === "tool")
      results.set(r.message.toolCallId, { content: r.message.content, isError: r.message.isError === true });

  const out: TranscriptItem[] = [];
  const push = (event: AgentStreamEvent) =>
    out.push({ kind: "event", event: (parent ? { ...event, parent_tool_use_id: parent } : event) as AgentStreamEvent });
  const started = new Map<string, { name: string; args: unknown }>();
  const ended = new Set<string>();
  /** A text-mode call's tool_end, whose output is in the next `tool_output` message. */
  let awaiting: { event: Extract<AgentStreamEvent, { type: "tool_end" }>; headerLines: number } | undefined;

  for (const r of records.slice(start)) {
    if (r.t === "message") {
      const m = r.message;
      if (m.role === "user") {
        if (r.origin === "tool_output") {
          if (awaiting) {
            // "[rt] Output of:\n<header lines>\n<output>": the output only, as the call's result.
            awaiting.event.output = m.content
              .split("\n")
              .slice(1 + awaiting.headerLines)
              .join("\n");
            awaiting = undefined;
          }
        } else if (r.origin === "user_command") {
          const cmd = parseUserCommandMessage(m.content);
          if (cmd && !parent) {
            out.push({ kind: "prompt", text: `!${cmd.command}` });
            const id = `user-command-${r.i}`;
            push({ type: "tool_start", id, name: "bash", args: { command: cmd.command }, protocol: "tools" });
            push({
              type: "tool_end",
              id,
              name: "bash",
              success: cmd.success,
              output: cmd.output,
              ...(cmd.success ? {} : { error: cmd.output.split("\n")[0] ?? "failed" }),
              started_at: 0,
              ended_at: 0,
            });
          }
        } else if (!r.origin && !parent) out.push({ kind: "prompt", text: m.content });
      } else if (m.role === "assistant") {
        if (m.reasoning?.trim()) push({ type: "reasoning", delta: m.reasoning });
        if (m.content.trim() !== "") push({ type: "text", delta: m.content });
      } else if (m.role === "tool") {
        // A result without its tool_end: rt stopped mid-call and the result was written on reopening.
        const call = started.get(m.toolCallId);
        if (call && !ended.has(m.toolCallId)) {
          ended.add(m.toolCallId);
          push({
            type: "tool_end",
            id: m.toolCallId,
            name: call.name,
            success: false,
            output: m.content,
            error: m.content.split("\n")[0] ?? "failed",
            started_at: 0,
            ended_at: 0,
          });
        }
      }
      continue;
    }
    if (r.t !== "event") continue;
    const ev = r.event;
    switch (ev.type) {
      case "tool_start":
        started.set(ev.id, { name: ev.name, args: ev.args });
        push(ev);
        break;
      case "tool_end": {
        ended.add(ev.id);
        const result = results.get(ev.id);
        const event = { ...ev, output: result?.content ?? ev.output };
        if (!result) {
          const args = started.get(ev.id)?.args as { command?: unknown } | undefined;
          const headerLines =
            ev.name === "bash" && typeof args?.command === "string" ? args.command.split("\n").length : 1;
          awaiting = { event, headerLines };
        }
        push(event);
        break;
      }
      case "subagent_start": {
        push(ev);
        // The subagent's own calls, from its log, under its task call.
        const sub = sidechain(ev.parent_tool_use_id);
        if (sub && !parent) out.push(...transcriptItems(sub, () => undefined, ev.parent_tool_use_id));
        break;
      }
      case "tool_blocked":
      case "todos":
      case "subagent_end":
      case "notice":
      case "compact_start":
      case "compact_end":
      case "error":
        push(ev);
        break;
      default:
        // model_turn_end, turn_complete: figures the faces take from the session's totals.
        break;
    }
  }
  return out;
}
