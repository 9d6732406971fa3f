// The agent loop (seed 003): a user prompt goes in, an async stream of events
// comes out. Each model turn streams text and reasoning, then the loop runs the
// tool calls the model asked for (native calls, or text mode's fenced blocks),
// through the approvals and the policy, adds the results and asks the model
// again, until it answers without calling anything. Every event is written to
// the session log before it is handed to the face.
//
// Limits: --max-turns model requests per user turn; AGENT_LOOP_REPEAT_LIMIT
// identical consecutive calls stop the turn; tool output is cut to
// toolOutputMaxChars; the context is compacted at compactThreshold of the
// window. Read-only calls of one model turn run in parallel; a call that
// writes runs alone, in order.
import fs from "node:fs";
import type { ChatMessage, FinishReason, ModelRequest, NativeParts, Provider, ToolCall, ToolSpec, Usage } from "./providers/types.js";
import { ProviderError } from "./providers/types.js";
import { addUsage, zeroUsage, type AgentErrorKind, type AgentEvent, type Protocol, type UsageTotals } from "./events.js";
import { Approvals, describeCall, type ApprovalCallback, type ApprovalMode } from "./approval.js";
import { SessionLog, summaryEntry, withContent, now, type ContextEntry, type MessageOrigin, type ProtocolChoice, type SessionState } from "./session.js";
import { requestMessages } from "./requestMessages.js";
import { systemPrompt } from "./prompts.js";
import { estimateMessageTokens, estimateTokens } from "./tokens.js";
import { cutMiddle } from "./truncate.js";
import { keepFrom, outputsToPrune, filesTouched, transcript, summaryMessages, PRUNED_PLACEHOLDER } from "./compaction.js";
import { actionHeader, parseActions, textualToolCalls, type TextAction } from "./textProtocol.js";
import { EventQueue } from "./eventQueue.js";
import { costOf, type Price } from "./settings.js";
import { withProfile } from "./rtOnPath.js";
import { callTool } from "../tools/policy.js";
import { TOOLS, findTool, jsonSchemaOf } from "../tools/registry.js";
import type { Tool, ToolResult } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import {
  AGENT_COMPACT_KEEP_FRACTION,
  AGENT_COMPACT_MIN_GAIN_FRACTION,
  AGENT_COMPACT_THRESHOLD,
  AGENT_DEFAULT_MAX_TURNS,
  AGENT_LOOP_REPEAT_LIMIT,
  AGENT_PRUNE_PROTECT_FRACTION,
  AGENT_SUMMARY_INPUT_FRACTION,
  AGENT_TOOL_OUTPUT_MAX_CHARS,
  SAVED_OUTPUTS_KEEP,
  DEFAULT_CONTEXT_WINDOW,
} from "../limits.js";

export interface AgentOptions {
  /** The workspace tools run in (see agentWorkspace: `rt` on PATH). */
  workspace: Workspace;
  provider: Provider;
  /** The model name sent to the provider. */
  model: string;
  /** "provider/model", as shown and recorded in the session. */
  modelLabel: string;
  protocol: ProtocolChoice;
  approval: ApprovalMode;
  /** How an interactive face asks; without it, calls that need approval are denied. */
  approve?: ApprovalCallback;
  maxTurns?: number;
  toolOutputMaxChars?: number;
  /** Tokens; default: what the provider reports, else DEFAULT_CONTEXT_WINDOW. */
  contextWindow?: number;
  compactThreshold?: number;
  price?: Price;
  temperature?: number;
  maxOutputTokens?: number;
  /** A session to continue; default: a new one. */
  session?: { log: SessionLog; state: SessionState };
}

export interface RunOptions {
  /** Aborting it interrupts the turn (Ctrl-C): the session keeps everything done so far. */
  signal?: AbortSignal;
}

/** What one model request produced. */
interface ModelAnswer {
  text: string;
  reasoning: string;
  signature?: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  /** Provider-native pieces to keep with the message (thinking blocks, reasoning details...). */
  native?: NativeParts;
  /** How the stream said the answer ended (absent when it failed first). */
  finish?: FinishReason;
  finishRaw?: string;
  finishDetail?: string;
  error?: unknown;
}

/** The finish reasons that end an answer before it is complete: the answer is kept, marked, and not acted on. */
const CUT_SHORT: ReadonlySet<FinishReason> = new Set(["length", "refusal", "content_filter"]);

/** The mark left on an answer that did not complete, in the session and in what the model sees later. */
function cutNote(finish: FinishReason, raw: string | undefined, detail: string | undefined): string {
  const said = raw && raw !== finish ? `${finish}, "${raw}"` : finish;
  if (finish === "length") return `[rt: this answer was cut off at the output limit (${said})]`;
  if (finish === "refusal") return `[rt: the model declined to answer (${said})${detail ? `: ${detail}` : ""}]`;
  if (finish === "content_filter") return `[rt: the provider's content filter stopped this answer (${said})]`;
  return `[rt: this answer did not complete (${said})]`;
}

/** One call to run: a native tool call or a text-mode action. */
interface PendingCall {
  id: string;
  name: string;
  tool?: Tool;
  /** Parsed arguments, or an error saying why they could not be parsed. */
  args: Record<string, unknown> | { invalid: string; raw: string };
  protocol: Protocol;
  /** Text mode: the line shown above its output. */
  header?: string;
}

/** State of one user turn. */
class Turn {
  modelTurns = 0;
  usage: UsageTotals = zeroUsage();
  cost: number | undefined;
  lastText = "";
  lastFinish: FinishReason = "stop";
  private lastSignature: string | undefined;
  private repeats = 0;

  /** How many times in a row this call has now been seen. */
  repeat(signature: string): number {
    this.repeats = signature === this.lastSignature ? this.repeats + 1 : 1;
    this.lastSignature = signature;
    return this.repeats;
  }
}

const INTERRUPTED_RESULT = "interrupted by the user: not run";

function isInvalid(a: PendingCall["args"]): a is { invalid: string; raw: string } {
  return typeof (a as { invalid?: unknown }).invalid === "string";
}

function parseArguments(text: string): PendingCall["args"] {
  if (text.trim() === "") return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
    return { invalid: "the arguments must be a JSON object", raw: text };
  } catch (e) {
    return { invalid: `the arguments are not valid JSON (${(e as Error).message})`, raw: text };
  }
}

/** Stable text of a call for loop detection: name + arguments with sorted keys. */
function signatureOf(name: string, args: unknown): string {
  const canon = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
      : Array.isArray(v)
        ? v.map(canon)
        : v;
  return `${name} ${JSON.stringify(canon(args))}`;
}

/** What the model is told about a tool result. */
function resultText(r: ToolResult): string {
  if (r.success) return r.output === "" ? "(no output)" : r.output;
  return r.output ? `error: ${r.error ?? "failed"}\n${r.output}` : `error: ${r.error ?? "failed"}`;
}

function fromUsage(u: Usage | undefined): UsageTotals {
  return {
    input_tokens: u?.inputTokens ?? 0,
    output_tokens: u?.outputTokens ?? 0,
    cached_input_tokens: u?.cachedInputTokens ?? 0,
    reasoning_tokens: u?.reasoningTokens ?? 0,
    requests: 1,
  };
}

/** Whether a tool call's argument text is a whole JSON object (a cut answer leaves the last call's arguments unfinished). */
function completeArguments(text: string): boolean {
  if (text.trim() === "") return true;
  try {
    const v = JSON.parse(text) as unknown;
    return !!v && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

function errorKind(e: unknown, signal: AbortSignal | undefined): AgentErrorKind {
  if (signal?.aborted) return "interrupted";
  if (e instanceof ProviderError) return e.kind === "aborted" ? "interrupted" : e.kind;
  return "internal";
}

export class Agent {
  private readonly ws: Workspace;
  private provider: Provider;
  private model: string;
  private modelLabel: string;
  private readonly protocolChoice: ProtocolChoice;
  private protocol: Protocol;
  private readonly approvals: Approvals;
  private readonly log: SessionLog;
  private context: ContextEntry[];
  private sessionUsage: UsageTotals;
  private sessionCost: number | undefined;
  private price: Price | undefined;
  private contextWindow: number | undefined;
  private readonly prompts = new Map<Protocol, string>();
  /** The provider's token count after the last request, and the context length it covered. */
  private reported: { tokens: number; length: number } | undefined;
  private callCounter = 0;

  constructor(private readonly opts: AgentOptions) {
    // Plan mode changes nothing: its commands (text mode) run as safe-read-only, in the sandbox.
    this.ws = opts.approval === "plan" ? withProfile(opts.workspace, "safe-read-only") : opts.workspace;
    this.provider = opts.provider;
    this.model = opts.model;
    this.modelLabel = opts.modelLabel;
    this.protocolChoice = opts.protocol;
    this.approvals = new Approvals(opts.approval, opts.approve);
    this.price = opts.price;
    this.contextWindow = opts.contextWindow;
    const session = opts.session ?? SessionLog.create(this.ws, opts.modelLabel, opts.protocol);
    this.log = session.log;
    this.context = session.state.context;
    this.sessionUsage = session.state.usage;
    this.sessionCost = session.state.cost;
    this.protocol = opts.protocol === "text" ? "text" : opts.protocol === "tools" ? "tools" : (session.state.protocol ?? "tools");
    if (opts.session && session.state.model !== opts.modelLabel) this.log.append({ t: "model", model: opts.modelLabel, ts: now() });
  }

  get sessionId(): string {
    return this.log.id;
  }

  get sessionFile(): string | undefined {
    return this.log.file;
  }

  get currentModel(): string {
    return this.modelLabel;
  }

  get currentProtocol(): Protocol {
    return this.protocol;
  }

  get usage(): { usage: UsageTotals; cost?: number } {
    return { usage: this.sessionUsage, ...(this.sessionCost !== undefined ? { cost: this.sessionCost } : {}) };
  }

  /** The context the model sees next (for faces that show it, and for tests). */
  get contextMessages(): readonly ContextEntry[] {
    return this.context;
  }

  /** Switches model (/model). With protocol auto, tools are tried again. */
  setModel(provider: Provider, model: string, label: string, price?: Price, contextWindow?: number): void {
    this.provider = provider;
    this.model = model;
    this.modelLabel = label;
    this.price = price;
    this.contextWindow = contextWindow;
    this.reported = undefined;
    this.log.append({ t: "model", model: label, ts: now() });
    if (this.protocolChoice === "auto" && this.protocol !== "tools") this.setProtocol("tools");
  }

  /** Empties the context (/clear); the log keeps the history. */
  clear(): void {
    this.context = [];
    this.reported = undefined;
    this.log.append({ t: "clear", next: this.log.messageCount, ts: now() });
  }

  close(): void {
    this.log.close();
  }

  // ---- the turn --------------------------------------------------------------------

  /** Runs one user turn. Ends with `turn_complete`, or with `error` (the session keeps what was done). */
  async *run(prompt: string, opts: RunOptions = {}): AsyncGenerator<AgentEvent> {
    const signal = opts.signal;
    const turn = new Turn();
    this.add({ role: "user", content: prompt });
    try {
      for await (const ev of this.turnLoop(turn, signal)) {
        // The session log could not be written (a full disk), maybe while logging this very event:
        // say so once, before it (the consumer may stop at turn_complete); the turn goes on.
        const lost = this.log.takeWriteError();
        if (lost) yield { type: "notice", message: lost };
        yield ev;
      }
    } catch (e) {
      yield this.emit(this.errorEvent(turn, errorKind(e, signal), `rt failed: ${(e as Error)?.stack ?? String(e)}`));
    }
  }

  private async *turnLoop(turn: Turn, signal: AbortSignal | undefined): AsyncGenerator<AgentEvent> {
    const maxTurns = this.opts.maxTurns ?? AGENT_DEFAULT_MAX_TURNS;
    for (;;) {
      if (signal?.aborted) {
        yield this.emit(this.errorEvent(turn, "interrupted", "interrupted"));
        return;
      }
      if (turn.modelTurns >= maxTurns) {
        yield this.emit(
          this.errorEvent(turn, "max_turns", `stopped after ${maxTurns} model turns (--max-turns ${maxTurns}) before the model finished; continue the session to let it go on, or raise --max-turns`),
        );
        return;
      }
      yield* this.maybeCompact(turn, signal);
      turn.modelTurns++;
      const protocol = this.protocol;
      const answer = yield* this.ask(protocol, turn, signal);

      if (answer.error !== undefined) {
        const e = answer.error;
        if (e instanceof ProviderError && e.kind === "tools_unsupported" && protocol === "tools" && !answer.text && !answer.toolCalls.length) {
          if (this.protocolChoice === "auto") {
            this.setProtocol("text");
            yield this.emit({ type: "notice", message: `${this.modelLabel} does not accept native tool calls (${e.message}); continuing in text mode (fenced bash blocks)` });
            turn.modelTurns--;
            continue;
          }
          yield this.emit(this.errorEvent(turn, "tools_unsupported", `${e.message}\nThis model does not take native tool calls: use --protocol text (or auto).`));
          return;
        }
        const kind = errorKind(e, signal);
        this.keepPartial(answer, kind === "interrupted" ? "[interrupted by the user]" : `[the answer was cut off: ${(e as Error).message}]`);
        yield this.emit(this.errorEvent(turn, kind, kind === "interrupted" ? "interrupted" : (e as Error).message, "error"));
        return;
      }

      const finish = answer.finish ?? "stop";
      turn.lastFinish = finish;
      const cut = CUT_SHORT.has(finish);
      // A cut answer without calls (or in text mode, where its last block may be cut) ends the turn: kept, marked.
      const endsTurn = cut && (protocol === "text" || finish !== "length" || answer.toolCalls.length === 0);
      const note = cut ? cutNote(finish, answer.finishRaw, answer.finishDetail) : "";
      const content = endsTurn ? (answer.text ? `${answer.text}\n\n${note}` : note) : answer.text;
      const assistant: ChatMessage = {
        role: "assistant",
        content,
        ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
        // The signature travels with the blocks it signs (native.anthropic); kept apart only without them.
        ...(answer.signature && !answer.native?.anthropic ? { reasoningSignature: answer.signature } : {}),
        ...(answer.toolCalls.length ? { toolCalls: answer.toolCalls } : {}),
        finish,
        ...(answer.finishRaw && answer.finishRaw !== finish ? { finishRaw: answer.finishRaw } : {}),
        ...(answer.native ? { native: answer.native } : {}),
      };
      this.add(assistant);
      this.reported = answer.usage ? { tokens: answer.usage.inputTokens + answer.usage.outputTokens, length: this.context.length } : undefined;
      turn.lastText = answer.text;

      if (endsTurn) {
        // Calls of a refused or filtered answer are not acted on; each gets a result so the conversation stays valid.
        const why = `not run: ${note.slice(1, -1).replace(/^rt: /, "")}`;
        for (const c of answer.toolCalls) this.add({ role: "tool", toolCallId: c.id, name: c.name, content: why, isError: true });
        yield this.emit({ ...this.errorEvent(turn, finish as AgentErrorKind, this.cutMessage(finish, answer), finish), text: answer.text } as AgentEvent);
        return;
      }

      let calls: PendingCall[] = [];
      if (answer.toolCalls.length) {
        calls = answer.toolCalls.map((c) => this.pendingNative(c));
        if (finish === "length") {
          // Cut at the output limit in the middle of a call: the calls with whole arguments run, a cut one does not.
          const cutCalls = calls.filter((c) => !completeArguments(answer.toolCalls.find((t) => t.id === c.id)?.arguments ?? ""));
          for (const c of cutCalls) {
            c.args = {
              invalid: `your answer was cut off at the output limit in the middle of this call's arguments, so it was not run; make the call again with less in it (split a large edit or write into several calls)`,
              raw: isInvalid(c.args) ? c.args.raw : JSON.stringify(c.args),
            };
          }
          if (cutCalls.length) {
            yield this.emit({ type: "notice", message: `the answer was cut off at the output limit (${answer.finishRaw ?? "length"}); ${cutCalls.length} cut tool call${cutCalls.length === 1 ? "" : "s"} not run, the model is told to make ${cutCalls.length === 1 ? "it" : "them"} again` });
          }
        }
      } else if (protocol === "text") {
        calls = parseActions(answer.text).map((a) => this.pendingAction(a));
      } else if (this.protocolChoice === "auto") {
        const written = textualToolCalls(answer.text);
        if (written.length) {
          this.setProtocol("text");
          yield this.emit({ type: "notice", message: `${this.modelLabel} wrote its tool calls as text instead of calling them; continuing in text mode` });
          calls = written.map((w) => this.pendingAction({ kind: "tool", name: w.name, args: w.args }));
        }
      }
      if (calls.length === 0) {
        yield this.emit(this.completeEvent(turn));
        return;
      }
      const stopped = yield* this.runCalls(calls, turn, signal);
      if (stopped) return;
    }
  }

  /** One model request, streamed: text and reasoning are yielded as they arrive. */
  private async *ask(protocol: Protocol, turn: Turn, signal: AbortSignal | undefined): AsyncGenerator<AgentEvent, ModelAnswer> {
    const req: ModelRequest = {
      model: this.model,
      messages: requestMessages(this.systemPrompt(protocol), this.context, protocol),
      ...(protocol === "tools" ? { tools: this.toolSpecs() } : {}),
      ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
      ...(this.opts.maxOutputTokens !== undefined ? { maxOutputTokens: this.opts.maxOutputTokens } : {}),
      // The window compaction budgets for: Ollama runs the model with exactly this context (num_ctx).
      contextWindow: await this.window(),
      ...(signal ? { signal } : {}),
    };
    const answer: ModelAnswer = { text: "", reasoning: "", toolCalls: [] };
    try {
      for await (const part of this.provider.stream(req)) {
        if (part.type === "text") {
          if (!part.delta) continue;
          answer.text += part.delta;
          yield this.emit({ type: "text", delta: part.delta });
        } else if (part.type === "reasoning") {
          if (part.signature) answer.signature = part.signature;
          if (!part.delta) continue;
          answer.reasoning += part.delta;
          yield this.emit({ type: "reasoning", delta: part.delta });
        } else if (part.type === "tool_call") {
          answer.toolCalls.push(part.call);
        } else if (part.type === "usage") {
          answer.usage = part.usage;
        } else if (part.type === "native") {
          answer.native = part.native;
        } else if (part.type === "finish") {
          answer.finish = part.reason;
          if (part.raw !== undefined) answer.finishRaw = part.raw;
          if (part.detail !== undefined) answer.finishDetail = part.detail;
        }
      }
      if (signal?.aborted) answer.error = new ProviderError("interrupted", "aborted");
    } catch (e) {
      answer.error = e;
    }
    const used = fromUsage(answer.usage);
    this.count(turn, used);
    yield this.emit({
      type: "model_turn_end",
      finish_reason: answer.error !== undefined ? "error" : (answer.finish ?? "stop"),
      ...(answer.finishRaw !== undefined && answer.error === undefined ? { stop_reason: answer.finishRaw } : {}),
      tool_calls: answer.toolCalls.length,
      usage: used,
    });
    return answer;
  }

  /** What the user is told when an answer was cut short. */
  private cutMessage(finish: FinishReason, answer: ModelAnswer): string {
    const said = answer.finishRaw && answer.finishRaw !== finish ? `finish reason "${finish}", the provider's "${answer.finishRaw}"` : `finish reason "${finish}"`;
    const kept = answer.text || answer.reasoning ? "; the partial answer is kept in the session, marked as cut" : "";
    if (finish === "length") {
      const budget = this.opts.maxOutputTokens !== undefined ? ` (now ${this.opts.maxOutputTokens})` : "";
      const what = !answer.text && answer.reasoning ? "the model spent its whole output budget thinking and wrote no answer" : "the answer was cut off at the model's output limit";
      const calls = answer.toolCalls.length ? ` before its tool calls were complete (${answer.toolCalls.length} not run)` : "";
      return `${what}${calls} (${said})${kept}. Raise agent.max_output_tokens${budget}, or ask for a shorter answer.`;
    }
    if (finish === "refusal") return `the model declined to answer (${said})${answer.finishDetail ? `: ${answer.finishDetail}` : ""}${kept}.`;
    return `the provider's content filter stopped the answer (${said})${kept}.`;
  }

  /** Adds one request's usage to the turn and the session, and logs it. */
  private count(turn: Turn, u: UsageTotals): void {
    const cost = this.price ? costOf(u, this.price) : undefined;
    turn.usage = addUsage(turn.usage, u);
    this.sessionUsage = addUsage(this.sessionUsage, u);
    if (cost !== undefined) {
      turn.cost = (turn.cost ?? 0) + cost;
      this.sessionCost = (this.sessionCost ?? 0) + cost;
    }
    this.log.append({ t: "usage", usage: u, ...(cost !== undefined ? { cost } : {}), model: this.modelLabel, ts: now() });
  }

  /** Keeps what a failed or interrupted request had streamed, marked as cut off. */
  private keepPartial(answer: ModelAnswer, note: string): void {
    if (!answer.text && !answer.reasoning) return;
    this.add({
      role: "assistant",
      content: answer.text ? `${answer.text}\n\n${note}` : note,
      ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
      finish: "error",
      ...(answer.native ? { native: answer.native } : {}),
    });
  }

  // ---- tool calls --------------------------------------------------------------------

  private nextId(prefix: string): string {
    return `${prefix}${++this.callCounter}`;
  }

  private pendingNative(c: ToolCall): PendingCall {
    const tool = findTool(c.name);
    return { id: c.id, name: c.name, ...(tool ? { tool } : {}), args: parseArguments(c.arguments), protocol: "tools" };
  }

  private pendingAction(a: TextAction): PendingCall {
    const id = this.nextId("text-");
    if (a.kind === "bash") return { id, name: "bash", tool: findTool("bash"), args: { command: a.command }, protocol: "text", header: actionHeader(a) };
    if (a.kind === "tool") {
      const tool = findTool(a.name);
      return { id, name: a.name, ...(tool ? { tool } : {}), args: a.args, protocol: "text", header: actionHeader(a) };
    }
    return { id, name: "action", args: { invalid: a.error, raw: a.raw }, protocol: "text", header: actionHeader(a) };
  }

  /**
   * Runs the calls of one model answer: loop detection first (calls from the
   * repeated one on are not run), then batches (consecutive read-only native
   * calls together, in parallel; anything else alone), each result added to
   * the context as soon as it exists. Returns true when the turn must stop.
   */
  private async *runCalls(calls: PendingCall[], turn: Turn, signal: AbortSignal | undefined): AsyncGenerator<AgentEvent, boolean> {
    let stopAt = -1;
    let repeated = "";
    for (let j = 0; j < calls.length; j++) {
      const c = calls[j];
      const sig = signatureOf(c.name, isInvalid(c.args) ? c.args.raw : c.args);
      if (turn.repeat(sig) >= AGENT_LOOP_REPEAT_LIMIT) {
        stopAt = j;
        repeated = sig;
        break;
      }
    }
    const runnable = stopAt === -1 ? calls : calls.slice(0, stopAt);
    let interrupted = false;
    for (const batch of this.batches(runnable)) {
      if (signal?.aborted) interrupted = true;
      if (interrupted) {
        for (const c of batch) this.addResult(c, INTERRUPTED_RESULT, true);
        continue;
      }
      const queue = new EventQueue<AgentEvent>();
      const emit = (ev: AgentEvent) => queue.push(this.emit(ev));
      void Promise.all(batch.map((c) => this.runOne(c, emit, signal))).finally(() => queue.close());
      yield* queue.drain();
    }
    if (stopAt !== -1) {
      for (const c of calls.slice(stopAt)) this.addResult(c, `not run: loop detected (the same call ${AGENT_LOOP_REPEAT_LIMIT} times in a row)`, true);
      yield this.emit(
        this.errorEvent(turn, "loop_detected", `loop detected: the model made the same call ${AGENT_LOOP_REPEAT_LIMIT} times in a row (${repeated.length > 300 ? `${repeated.slice(0, 300)}…` : repeated}); stopped this turn`),
      );
      return true;
    }
    if (interrupted || signal?.aborted) {
      yield this.emit(this.errorEvent(turn, "interrupted", "interrupted"));
      return true;
    }
    return false;
  }

  /** Consecutive read-only native calls form one parallel batch; every other call is a batch of its own. */
  private batches(calls: PendingCall[]): PendingCall[][] {
    const out: PendingCall[][] = [];
    let group: PendingCall[] = [];
    for (const c of calls) {
      const parallel = c.protocol === "tools" && c.tool !== undefined && c.tool.readOnly && !isInvalid(c.args);
      if (parallel) {
        group.push(c);
        continue;
      }
      if (group.length) out.push(group);
      group = [];
      out.push([c]);
    }
    if (group.length) out.push(group);
    return out;
  }

  /**
   * Runs one call: approval first (a blocked call emits only tool_blocked), then
   * tool_start, the policy, the output cut to size, tool_end; adds its result.
   */
  private async runOne(c: PendingCall, emit: (ev: AgentEvent) => void, signal: AbortSignal | undefined): Promise<void> {
    if (c.tool && !isInvalid(c.args)) {
      // In plan mode, text mode's shell blocks run without asking: the workspace is safe-read-only (sandboxed).
      const sandboxedPlanCommand = this.approvals.mode === "plan" && c.protocol === "text" && c.tool.name === "bash";
      const verdict = sandboxedPlanCommand ? { ok: true as const } : await this.approvals.check(c.tool, c.args, describeCall(c.tool.name, c.args));
      if (!verdict.ok) {
        // Ctrl-C while the user was being asked ends the question: the call was not refused, the turn was interrupted.
        const reason = signal?.aborted ? INTERRUPTED_RESULT : verdict.reason;
        emit({ type: "tool_blocked", id: c.id, name: c.name, args: c.args, reason });
        this.addResult(c, signal?.aborted ? reason : `blocked: ${reason}`, true);
        return;
      }
    }
    emit({ type: "tool_start", id: c.id, name: c.name, args: isInvalid(c.args) ? c.args.raw : c.args, protocol: c.protocol });
    const started = performance.timeOrigin + performance.now();
    const finish = (success: boolean, output: string, error?: string, saved?: string) => {
      const ended = performance.timeOrigin + performance.now();
      emit({ type: "tool_end", id: c.id, name: c.name, success, output, ...(error ? { error } : {}), ...(saved ? { saved_output: saved } : {}), started_at: started, ended_at: ended });
      this.addResult(c, output, !success);
    };
    if (isInvalid(c.args)) {
      const schema = c.tool ? `\nschema: ${JSON.stringify(jsonSchemaOf(c.tool))}` : "";
      finish(false, `error: ${c.args.invalid}${schema}`, c.args.invalid);
      return;
    }
    if (signal?.aborted) {
      finish(false, INTERRUPTED_RESULT, "interrupted");
      return;
    }
    const result = await callTool(this.ws, c.name, c.args, signal ? { signal } : {});
    const { text, saved } = this.fit(resultText(result), c.id);
    finish(result.success, text, result.success ? undefined : (result.error ?? "failed"), saved);
  }

  /** Cuts output to the limit, saving the whole of it under .rt/tool-output/. */
  private fit(full: string, callId: string): { text: string; saved?: string } {
    const max = this.opts.toolOutputMaxChars ?? AGENT_TOOL_OUTPUT_MAX_CHARS;
    if (full.length <= max) return { text: full };
    const base = `${this.log.id}-${callId.replace(/[^\w.-]/g, "_")}`;
    let saved: string | undefined;
    try {
      if (this.ws.state.ensure()) {
        // Call ids repeat (text mode numbers its calls per process; some servers reuse "call_1"): never overwrite an earlier output.
        let name = `${base}.txt`;
        for (let n = 2; fs.existsSync(this.ws.state.file("tool-output", name)); n++) name = `${base}-${n}.txt`;
        this.ws.state.prune(SAVED_OUTPUTS_KEEP - 1, "tool-output");
        this.ws.state.writeText(full, "tool-output", name);
        saved = `.rt/tool-output/${name}`;
      }
    } catch {
      saved = undefined;
    }
    const where = saved ? `the full output is saved in ${saved} (read or grep it for the rest)` : "the full output could not be saved (.rt/ state is off)";
    return { text: cutMiddle(full, max, where).text, ...(saved ? { saved } : {}) };
  }

  /** The result of a call, in the context and the log: a tool message, or in text mode a user message. */
  private addResult(c: PendingCall, output: string, isError: boolean): void {
    if (c.protocol === "tools") {
      this.add({ role: "tool", toolCallId: c.id, name: c.name, content: output, ...(isError ? { isError } : {}) });
    } else {
      this.add({ role: "user", content: `[rt] Output of:\n${c.header ?? c.name}\n${output.trimEnd()}` }, "tool_output");
    }
  }

  private toolSpecs(): ToolSpec[] {
    return TOOLS.filter((t) => this.approvals.offers(t)).map((t) => ({ name: t.name, description: t.description, parameters: jsonSchemaOf(t) }));
  }

  private systemPrompt(protocol: Protocol): string {
    let p = this.prompts.get(protocol);
    if (!p) {
      const plan = this.approvals.mode === "plan";
      const names = TOOLS.filter((t) => this.approvals.offers(t)).map((t) => t.name);
      p = systemPrompt({ root: this.ws.root, protocol, profile: this.ws.profile, plan, toolNames: names });
      this.prompts.set(protocol, p);
    }
    return p;
  }

  private setProtocol(p: Protocol): void {
    this.protocol = p;
    this.reported = undefined;
    this.log.append({ t: "protocol", protocol: p, ts: now() });
  }

  // ---- context and compaction ---------------------------------------------------------

  private add(message: ChatMessage, origin?: MessageOrigin): void {
    const i = this.log.appendMessage(message, origin);
    this.context.push({ i, message, ...(origin ? { origin } : {}) });
  }

  private async window(): Promise<number> {
    if (this.contextWindow === undefined) {
      let reported: number | undefined;
      try {
        reported = await this.provider.contextWindow?.(this.model);
      } catch {
        reported = undefined;
      }
      this.contextWindow = reported ?? DEFAULT_CONTEXT_WINDOW;
    }
    return this.contextWindow;
  }

  /** Tokens the next request will take: the provider's last count plus what was added since, or an estimate. */
  estimateContextTokens(): number {
    const protocol = this.protocol;
    const estimate = estimateTokens(requestMessages(this.systemPrompt(protocol), this.context, protocol), protocol === "tools" ? this.toolSpecs() : []);
    if (!this.reported || this.reported.length > this.context.length) return estimate;
    let added = 0;
    for (const e of this.context.slice(this.reported.length)) added += estimateMessageTokens(e.message);
    return Math.max(estimate, this.reported.tokens + added);
  }

  private async *maybeCompact(turn: Turn, signal: AbortSignal | undefined): AsyncGenerator<AgentEvent> {
    const window = await this.window();
    const threshold = this.opts.compactThreshold ?? AGENT_COMPACT_THRESHOLD;
    if (this.estimateContextTokens() < threshold * window) return;
    yield* this.compactNow("auto", undefined, signal, turn);
  }

  /** Forces compaction (/compact [instructions]): prune, then summarize everything. */
  async *compact(instructions?: string, opts: RunOptions = {}): AsyncGenerator<AgentEvent> {
    yield* this.compactNow("manual", instructions, opts.signal);
  }

  private async *compactNow(reason: "auto" | "manual", instructions: string | undefined, signal: AbortSignal | undefined, turn?: Turn): AsyncGenerator<AgentEvent> {
    const window = await this.window();
    const threshold = this.opts.compactThreshold ?? AGENT_COMPACT_THRESHOLD;
    const before = this.estimateContextTokens();
    yield this.emit({ type: "compact_start", reason, tokens: before, context_window: window });

    const prune = outputsToPrune(this.context, Math.floor(window * AGENT_PRUNE_PROTECT_FRACTION));
    if (prune.length) {
      this.log.append({ t: "prune", indices: prune, placeholder: PRUNED_PLACEHOLDER, ts: now() });
      const set = new Set(prune);
      this.context = this.context.map((e) => (e.i !== undefined && set.has(e.i) ? { ...e, message: withContent(e.message, PRUNED_PLACEHOLDER) } : e));
      this.reported = undefined;
    }

    let summarized = false;
    if (reason === "manual" || this.estimateContextTokens() >= threshold * window) {
      // Auto: keep the most recent messages verbatim. Manual: summarize everything.
      const k = reason === "manual" ? this.context.length : keepFrom(this.context, Math.floor(window * AGENT_COMPACT_KEEP_FRACTION));
      const old = this.context.slice(0, k);
      // Auto: when the system prompt and tools are most of the window, summarizing a few messages each turn gains nothing.
      const oldTokens = old.reduce((sum, e) => sum + estimateMessageTokens(e.message), 0);
      if (old.length > 0 && (reason === "manual" || oldTokens >= window * AGENT_COMPACT_MIN_GAIN_FRACTION)) {
        const maxChars = Math.floor(window * AGENT_SUMMARY_INPUT_FRACTION) * 4;
        const messages = summaryMessages(transcript(old, maxChars), filesTouched(old), instructions);
        const summary = yield* this.summarize(messages, signal, turn);
        if (summary) {
          const keep = this.context.slice(k);
          const keepFromIndex = keep.length ? (keep[0].i ?? this.log.messageCount) : this.log.messageCount;
          this.log.append({ t: "compaction", summary, keep_from: keepFromIndex, ts: now() });
          this.context = [summaryEntry(summary), ...keep];
          this.reported = undefined;
          summarized = true;
        }
      }
    }
    yield this.emit({ type: "compact_end", tokens_before: before, tokens_after: this.estimateContextTokens(), pruned: prune.length, summarized });
  }

  /** Asks the model for the summary (no tools, not streamed to the face). Undefined when it failed. */
  private async *summarize(messages: ChatMessage[], signal: AbortSignal | undefined, turn?: Turn): AsyncGenerator<AgentEvent, string | undefined> {
    let text = "";
    let usage: Usage | undefined;
    let finish: FinishReason | undefined;
    try {
      const contextWindow = await this.window();
      for await (const part of this.provider.stream({ model: this.model, messages, contextWindow, ...(signal ? { signal } : {}) })) {
        if (part.type === "text") text += part.delta;
        else if (part.type === "usage") usage = part.usage;
        else if (part.type === "finish") finish = part.reason;
      }
    } catch (e) {
      this.count(turn ?? new Turn(), fromUsage(usage));
      yield this.emit({ type: "notice", message: `compaction: the model could not write the summary (${(e as Error).message}); older messages were kept` });
      return undefined;
    }
    this.count(turn ?? new Turn(), fromUsage(usage));
    if (text.trim() === "" || finish === "refusal" || finish === "content_filter") {
      const why = text.trim() === "" ? "returned an empty summary" : `did not write the summary (${finish})`;
      yield this.emit({ type: "notice", message: `compaction: the model ${why}; older messages were kept` });
      return undefined;
    }
    // A summary cut at the output limit is still most of one; the mark says what is missing.
    return finish === "length" ? `${text.trim()}\n\n[rt: this summary was cut off at the output limit]` : text.trim();
  }

  // ---- events --------------------------------------------------------------------------

  /** Writes an event to the session log (deltas as delta records; tool output lives in the messages) and returns it. */
  private emit<E extends AgentEvent>(ev: E): E {
    if (ev.type === "text" || ev.type === "reasoning") this.log.append({ t: "delta", kind: ev.type, delta: ev.delta });
    else if (ev.type === "tool_end") this.log.append({ t: "event", event: { ...ev, output: "" }, ts: now() });
    else this.log.append({ t: "event", event: ev, ts: now() });
    return ev;
  }

  private completeEvent(turn: Turn): AgentEvent {
    return {
      type: "turn_complete",
      session_id: this.log.id,
      text: turn.lastText,
      model_turns: turn.modelTurns,
      finish_reason: turn.lastFinish,
      protocol: this.protocol,
      usage: turn.usage,
      session_usage: this.sessionUsage,
      ...(turn.cost !== undefined ? { cost: turn.cost } : {}),
      ...(this.sessionCost !== undefined ? { session_cost: this.sessionCost } : {}),
    };
  }

  private errorEvent(turn: Turn, kind: AgentErrorKind, message: string, finish?: FinishReason): AgentEvent {
    return { type: "error", kind, message, session_id: this.log.id, ...(finish ? { finish_reason: finish } : {}), usage: turn.usage, session_usage: this.sessionUsage };
  }
}
