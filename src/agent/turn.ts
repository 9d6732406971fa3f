// The agent loop as plain functions over a LoopContext:
//   runUserTurn   a user prompt in, events out: model turns and tool calls
//                 until the model answers without calling anything;
//   runModelTurn  one model request, streamed (text and reasoning as they come);
//   runToolCalls  one batch of tool calls (toolCalls.ts).
// Around them: compaction before a request (compaction.ts), long outputs cut
// and saved (outputSaving.ts), usage and cost counted (cost.ts), and the
// protocol fallback of --protocol auto (native tool calls → text mode).
//
// Limits: limits.maxTurns model requests per user turn; AGENT_LOOP_REPEAT_LIMIT
// identical consecutive calls stop the turn; tool output is cut to
// limits.toolOutputMaxChars; the context is compacted at
// limits.compactThreshold of the window.
import { warmTools } from "../tools/shared/warmUp.js";
import type {
  ChatImage,
  ChatMessage,
  FinishReason,
  ModelRequest,
  NativeParts,
  ToolCall,
  Usage,
} from "./providers/types.js";
import { userPromptHooks, stopHook, allowToolsForTurn, hookNoticeEvent } from "./hookCalls.js";
import { ProviderError } from "./providers/types.js";
import type { AgentErrorKind, AgentEvent, Protocol } from "./events.js";
import { usageOf } from "./cost.js";
import { requestMessages } from "./requestMessages.js";
import { parseActions, textualToolCalls } from "./textProtocol.js";
import { compactIfNeeded } from "./compaction.js";
import {
  completeEvent,
  contextWindow,
  countUsage,
  emit,
  errorEvent,
  setProtocol,
  TurnState,
  type LoopContext,
} from "./loopContext.js";
import { toolSpecs } from "./toolSet.js";
import { todoReminder } from "./sessionTools/todoWrite.js";
import { imageInputFor } from "./imageInput.js";
import { AGENT_MAX_IMAGES_PER_REQUEST, AGENT_PAUSED_TURN_CONTINUATIONS } from "../base/limits.js";
import { nativeCall, isUnreadable, runToolCalls, textCall, type PendingCall } from "./toolCalls.js";
import { lateReportMessage, lateReportNotice } from "./editChecks.js";

export interface RunOptions {
  /** Aborting it interrupts the turn (Ctrl-C): the session keeps everything done so far. */
  signal?: AbortSignal;
  /** Tools run without asking during this turn (a custom slash command's allowed-tools). */
  allowedTools?: readonly string[];
  /** Images attached to the prompt (an editor's pasted screenshot), already fitted to the model's limits. */
  images?: ChatImage[];
  /**
   * Messages the user sent while this turn runs (steering), asked for at each tool-call boundary: after a
   * batch of tool results, before the next model request. What it returns goes into the conversation there
   * as the user's words (one message; see steer). Messages it is never asked for are the face's to send.
   */
  steering?: () => readonly string[];
}

/** What one model request produced. */
export interface ModelAnswer {
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

/**
 * Runs one user turn: adds the prompt to the history, then model turns and
 * tool calls until the model answers without calling anything. Ends with
 * `turn_complete`, or with `error` (the history keeps what was done).
 */
export async function* runUserTurn(
  ctx: LoopContext,
  prompt: string,
  opts: RunOptions = {},
): AsyncGenerator<AgentEvent> {
  const signal = opts.signal;
  const turn = new TurnState();
  // Hooks (hookCalls.ts): SessionStart before a session's first prompt, UserPromptSubmit before each; either may block it or add context.
  const hooked = await userPromptHooks(ctx, prompt, signal);
  for (const n of hooked.notices) yield emit(ctx, hookNoticeEvent(n));
  if (hooked.block || hooked.stop) {
    yield emit(
      ctx,
      errorEvent(
        ctx,
        turn,
        "hook_blocked",
        `a UserPromptSubmit hook blocked the prompt: ${hooked.block ?? hooked.stop}`,
      ),
    );
    return;
  }
  // The working tree as it is before this prompt (a rewind to it restores this); plan mode changes nothing.
  const at = ctx.history.log.messageCount;
  const checkpointing = ctx.checkpoint !== undefined && ctx.approvals.mode !== "plan";
  if (checkpointing) {
    const failed = ctx.checkpoint!("before", at);
    if (failed) yield { type: "notice", message: failed };
  }
  ctx.history.add({ role: "user", content: hooked.prompt, ...(opts.images?.length ? { images: opts.images } : {}) });
  const endAllowed = allowToolsForTurn(ctx, opts.allowedTools);
  try {
    for await (const ev of turnLoop(ctx, turn, signal, opts.steering)) {
      // The session log could not be written (a full disk), maybe while logging this very event:
      // say so once, before it (the consumer may stop at turn_complete); the turn goes on.
      const lost = ctx.history.log.takeWriteError();
      if (lost) yield { type: "notice", message: lost };
      yield ev;
    }
  } catch (e) {
    yield emit(ctx, errorEvent(ctx, turn, errorKind(e, signal), `rt failed: ${(e as Error)?.stack ?? String(e)}`));
  } finally {
    endAllowed();
    // What the turn left (changes after it, before the next prompt, were made outside rt).
    if (checkpointing) ctx.checkpoint!("after", at);
  }
}

async function* turnLoop(
  ctx: LoopContext,
  turn: TurnState,
  signal: AbortSignal | undefined,
  steering: (() => readonly string[]) | undefined,
): AsyncGenerator<AgentEvent> {
  const maxTurns = ctx.limits.maxTurns;
  let stopHookContinues = 0;
  let pausedContinues = 0;
  for (;;) {
    if (signal?.aborted) {
      yield emit(ctx, errorEvent(ctx, turn, "interrupted", "interrupted"));
      return;
    }
    if (turn.modelTurns >= maxTurns) {
      yield emit(
        ctx,
        errorEvent(
          ctx,
          turn,
          "max_turns",
          `stopped after ${maxTurns} model turns (--max-turns ${maxTurns}) before the model finished; continue the session to let it go on, or raise --max-turns`,
        ),
      );
      return;
    }
    yield* compactIfNeeded(ctx, turn, signal);
    turn.modelTurns++;
    const protocol = ctx.protocol;
    const answer = yield* runModelTurn(ctx, turn, signal);

    if (answer.error !== undefined) {
      const e = answer.error;
      if (
        e instanceof ProviderError &&
        e.kind === "tools_unsupported" &&
        protocol === "tools" &&
        !answer.text &&
        !answer.toolCalls.length
      ) {
        if (ctx.protocolChoice === "auto") {
          setProtocol(ctx, "text");
          yield emit(ctx, {
            type: "notice",
            message: `${ctx.model.label} does not accept native tool calls (${e.message}); continuing in text mode (fenced bash blocks)`,
          });
          turn.modelTurns--;
          continue;
        }
        yield emit(
          ctx,
          errorEvent(
            ctx,
            turn,
            "tools_unsupported",
            `${e.message}\nThis model does not take native tool calls: use --protocol text (or auto).`,
          ),
        );
        return;
      }
      const kind = errorKind(e, signal);
      keepPartial(
        ctx,
        answer,
        kind === "interrupted" ? "[interrupted by the user]" : `[the answer was cut off: ${(e as Error).message}]`,
      );
      yield emit(
        ctx,
        errorEvent(ctx, turn, kind, kind === "interrupted" ? "interrupted" : (e as Error).message, "error"),
      );
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
    ctx.history.add(assistant);
    ctx.history.noteReported(answer.usage);
    turn.lastText = answer.text;

    if (endsTurn) {
      // Calls of a refused or filtered answer are not acted on; each gets a result so the conversation stays valid.
      const why = `not run: ${note.slice(1, -1).replace(/^rt: /, "")}`;
      for (const c of answer.toolCalls)
        ctx.history.add({ role: "tool", toolCallId: c.id, name: c.name, content: why, isError: true });
      yield emit(ctx, {
        ...errorEvent(ctx, turn, finish as AgentErrorKind, cutMessage(ctx, finish, answer), finish),
        text: answer.text,
      } as AgentEvent);
      return;
    }

    if (answer.finishRaw === "pause_turn" && answer.toolCalls.length === 0) {
      // Anthropic paused a long-running turn (server tools): its content, kept as the last message,
      // goes back as it is and the model continues the same turn (toAnthropicMessages).
      if (pausedContinues >= AGENT_PAUSED_TURN_CONTINUATIONS) {
        yield emit(ctx, {
          ...errorEvent(
            ctx,
            turn,
            "paused",
            `the provider paused the model's turn (stop reason "pause_turn") ${pausedContinues + 1} times in a row; ` +
              `rt continued it ${pausedContinues} times and stops here (the limit). ` +
              `What it wrote so far is kept: continue the session to let it go on.`,
            finish,
          ),
          text: answer.text,
        } as AgentEvent);
        return;
      }
      pausedContinues++;
      const message = `the provider paused the model's turn (stop reason "pause_turn"); continuing it (${pausedContinues} of at most ${AGENT_PAUSED_TURN_CONTINUATIONS})`;
      yield emit(ctx, { type: "notice", message });
      continue;
    }
    const calls = yield* callsOf(ctx, answer, protocol);
    if (calls.length === 0) {
      // The model answered while its edits were being checked: it is told of the errors they introduced
      // before the turn ends (checks that found none end it as it was, with no other request).
      if (ctx.editChecks.waiting) {
        await ctx.editChecks.settled(signal);
        const found = signal?.aborted ? [] : ctx.editChecks.take().filter((r) => r.errors > 0);
        if (found.length) {
          yield emit(ctx, { type: "notice", message: lateReportNotice(found) });
          ctx.history.add({ role: "user", content: lateReportMessage(found) }, "edit_check");
          continue;
        }
      }
      // Hooks: a Stop hook that blocks sends the model back to work with its reason.
      const stop = await stopHook(ctx, stopHookContinues, answer.text, signal);
      for (const n of stop.notices) yield emit(ctx, hookNoticeEvent(n));
      if (stop.continueWith !== undefined) {
        stopHookContinues++;
        ctx.history.add({ role: "user", content: `[Stop hook] ${stop.continueWith}` });
        continue;
      }
      yield emit(ctx, completeEvent(ctx, turn));
      return;
    }
    const outcome = yield* runToolCalls(ctx, calls, turn, signal);
    if (outcome.kind === "stopped") return;
    if (outcome.kind === "answered") {
      // exit_plan_mode without a face to review the plan: the plan is the turn's answer.
      turn.lastText = outcome.text;
      yield emit(ctx, completeEvent(ctx, turn));
      return;
    }
    // Every call has its result: a message the user sent meanwhile joins the conversation before the next request.
    if (steering) yield* steer(ctx, steering(), signal);
  }
}

/**
 * Adds what the user sent during the turn, at a tool-call boundary, as one user
 * message after the tool results (the providers' converters put it where each
 * API wants it: Anthropic after the tool_result blocks of the same user message,
 * OpenAI as a user message after the tool messages). It is a prompt like any
 * other: the UserPromptSubmit hook sees it (and may keep it out), the working
 * tree is checkpointed just before it (not in plan mode), and the session log
 * holds it as the user's words, so a resumed session shows it and a rewind can
 * go back to just before it. The `steered` event tells the face where it went.
 */
async function* steer(
  ctx: LoopContext,
  messages: readonly string[],
  signal: AbortSignal | undefined,
): AsyncGenerator<AgentEvent> {
  const text = messages.filter((m) => m.trim() !== "").join("\n\n");
  if (text === "") return;
  const hooked = await userPromptHooks(ctx, text, signal);
  for (const n of hooked.notices) yield emit(ctx, hookNoticeEvent(n));
  if (hooked.block || hooked.stop) {
    yield emit(ctx, {
      type: "notice",
      level: "warning",
      message:
        "a UserPromptSubmit hook blocked the message sent during the turn, so the model does not see it: " +
        (hooked.block ?? hooked.stop),
    });
    return;
  }
  if (ctx.checkpoint && ctx.approvals.mode !== "plan") {
    const failed = ctx.checkpoint("before", ctx.history.log.messageCount);
    if (failed) yield { type: "notice", message: failed };
  }
  ctx.history.add({ role: "user", content: hooked.prompt });
  // Not logged as an event: the message record above is the log's account of it.
  yield { type: "steered", text };
}

/**
 * The calls an answer asks for: its native calls (a call cut at the output
 * limit is answered, not run), text mode's actions, or, with --protocol auto,
 * calls a model wrote as text (the session switches to text mode).
 */
async function* callsOf(
  ctx: LoopContext,
  answer: ModelAnswer,
  protocol: Protocol,
): AsyncGenerator<AgentEvent, PendingCall[]> {
  if (answer.toolCalls.length) {
    const calls = answer.toolCalls.map(nativeCall);
    if (answer.finish === "length") {
      // Cut at the output limit in the middle of a call: the calls with whole arguments run, a cut one does not.
      const cutCalls = calls.filter(
        (c) => !completeArguments(answer.toolCalls.find((t) => t.id === c.id)?.arguments ?? ""),
      );
      for (const c of cutCalls) {
        c.args = {
          invalid: `your answer was cut off at the output limit in the middle of this call's arguments, so it was not run; make the call again with less in it (split a large edit or write into several calls)`,
          raw: isUnreadable(c.args) ? c.args.raw : JSON.stringify(c.args),
        };
      }
      if (cutCalls.length) {
        yield emit(ctx, {
          type: "notice",
          message: `the answer was cut off at the output limit (${answer.finishRaw ?? "length"}); ${cutCalls.length} cut tool call${cutCalls.length === 1 ? "" : "s"} not run, the model is told to make ${cutCalls.length === 1 ? "it" : "them"} again`,
        });
      }
    }
    return calls;
  }
  if (protocol === "text") return parseActions(answer.text).map((a) => textCall(ctx, a));
  if (ctx.protocolChoice === "auto") {
    const written = textualToolCalls(answer.text);
    if (written.length) {
      setProtocol(ctx, "text");
      yield emit(ctx, {
        type: "notice",
        message: `${ctx.model.label} wrote its tool calls as text instead of calling them; continuing in text mode`,
      });
      return written.map((w) => textCall(ctx, { kind: "tool", name: w.name, args: w.args }));
    }
  }
  return [];
}

/** One model request, streamed: text and reasoning are yielded as they arrive; its usage is counted for `turn`. */
export async function* runModelTurn(
  ctx: LoopContext,
  turn: TurnState,
  signal: AbortSignal | undefined,
): AsyncGenerator<AgentEvent, ModelAnswer> {
  const protocol = ctx.protocol;
  const limits = ctx.limits;
  const reminder = todoReminder(ctx);
  const req: ModelRequest = {
    model: ctx.model.model,
    messages: withReminder(
      await forThisModel(ctx, requestMessages(ctx.systemPrompt(protocol), ctx.history.context, protocol)),
      reminder,
    ),
    ...(protocol === "tools" ? { tools: toolSpecs(ctx.tools) } : {}),
    // "required" holds for the first request of the user turn only, so the model can answer after its calls.
    ...(protocol === "tools" && limits.toolChoice
      ? { toolChoice: limits.toolChoice === "required" && turn.modelTurns > 1 ? "auto" : limits.toolChoice }
      : {}),
    ...(limits.temperature !== undefined ? { temperature: limits.temperature } : {}),
    ...(limits.maxOutputTokens !== undefined ? { maxOutputTokens: limits.maxOutputTokens } : {}),
    // The window compaction budgets for: Ollama runs the model with exactly this context (num_ctx).
    contextWindow: await contextWindow(ctx),
    // Prompt caching: one key per session (a subagent's session id is its own), markers with this time to live.
    ...(limits.promptCache !== "off" ? { cache: { ttl: limits.promptCache, key: ctx.history.log.id } } : {}),
    ...(signal ? { signal } : {}),
  };
  const answer: ModelAnswer = { text: "", reasoning: "", toolCalls: [] };
  // The first request of a loop: while it is in flight, the offered tools load what their first calls would.
  if (!ctx.warmed) {
    ctx.warmed = true;
    if (req.tools) setImmediate(() => void warmTools(ctx.workspace, ctx.tools.offered));
  }
  // The language server's checks of the last answer's edits start once this request is on its way.
  if (ctx.editChecks.unstarted) setImmediate(() => ctx.editChecks.begin());
  try {
    for await (const part of ctx.model.provider.stream(req)) {
      if (part.type === "text") {
        if (!part.delta) continue;
        answer.text += part.delta;
        yield emit(ctx, { type: "text", delta: part.delta });
      } else if (part.type === "reasoning") {
        if (part.signature) answer.signature = part.signature;
        if (!part.delta) continue;
        answer.reasoning += part.delta;
        yield emit(ctx, { type: "reasoning", delta: part.delta });
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
  const used = usageOf(answer.usage);
  countUsage(ctx, turn, used);
  yield emit(ctx, {
    type: "model_turn_end",
    finish_reason: answer.error !== undefined ? "error" : (answer.finish ?? "stop"),
    ...(answer.finishRaw !== undefined && answer.error === undefined ? { stop_reason: answer.finishRaw } : {}),
    tool_calls: answer.toolCalls.length,
    usage: used,
  });
  return answer;
}

/**
 * The messages as this model can take them: images the history holds (read of
 * an image under another model, before a /model switch or --resume) become a
 * note for a model that does not see images; for one that does, only the
 * newest AGENT_MAX_IMAGES_PER_REQUEST are sent (providers cap images per
 * request: Anthropic at 100), older ones noted. Asked only when there are some.
 */
async function forThisModel(ctx: LoopContext, messages: ChatMessage[]): Promise<ChatMessage[]> {
  const count = messages.reduce((n, m) => n + ("images" in m ? (m.images?.length ?? 0) : 0), 0);
  if (count === 0) return messages;
  const input = await imageInputFor(ctx.model);
  let keep = input.vision ? AGENT_MAX_IMAGES_PER_REQUEST : 0;
  if (count <= keep) return messages;
  const why = input.vision
    ? `only the newest ${AGENT_MAX_IMAGES_PER_REQUEST} images of the conversation are sent; read the file again to see it`
    : input.reason;
  // From the newest message back: the first `keep` images stay.
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (!("images" in m) || !m.images?.length) continue;
    const kept = m.images.slice(m.images.length - Math.min(keep, m.images.length));
    keep -= kept.length;
    const dropped = m.images.length - kept.length;
    if (dropped === 0) continue;
    const { images: _all, ...rest } = m;
    out[i] = {
      ...rest,
      ...(kept.length ? { images: kept } : {}),
      content: `${m.content}\n[${dropped} image${dropped === 1 ? "" : "s"} left out: ${why}]`,
    } as ChatMessage;
  }
  return out;
}

/**
 * The request's messages with a system reminder added to the last one (a user
 * message or a tool result: it is where the model looks next). Only this
 * request carries it; the history does not keep it.
 */
function withReminder(messages: ChatMessage[], reminder: string | undefined): ChatMessage[] {
  const lastMessage = messages[messages.length - 1];
  if (!reminder || !lastMessage || (lastMessage.role !== "user" && lastMessage.role !== "tool")) return messages;
  // A message of its own after the last one, marked ephemeral: the message before it stays as the
  // next request repeats it, so the prompt cache's entry ending there is read back.
  return [...messages, { role: "user", content: reminder, ephemeral: true }];
}

/** What the user is told when an answer was cut short. */
function cutMessage(ctx: LoopContext, finish: FinishReason, answer: ModelAnswer): string {
  const said =
    answer.finishRaw && answer.finishRaw !== finish
      ? `finish reason "${finish}", the provider's "${answer.finishRaw}"`
      : `finish reason "${finish}"`;
  const kept = answer.text || answer.reasoning ? "; the partial answer is kept in the session, marked as cut" : "";
  if (finish === "length") {
    const max = ctx.limits.maxOutputTokens;
    const budget = max !== undefined ? ` (now ${max})` : "";
    const what =
      !answer.text && answer.reasoning
        ? "the model spent its whole output budget thinking and wrote no answer"
        : "the answer was cut off at the model's output limit";
    const calls = answer.toolCalls.length
      ? ` before its tool calls were complete (${answer.toolCalls.length} not run)`
      : "";
    return `${what}${calls} (${said})${kept}. Raise agent.max_output_tokens${budget}, or ask for a shorter answer.`;
  }
  if (finish === "refusal")
    return `the model declined to answer (${said})${answer.finishDetail ? `: ${answer.finishDetail}` : ""}${kept}.`;
  return `the provider's content filter stopped the answer (${said})${kept}.`;
}

/** Keeps what a failed or interrupted request had streamed, marked as cut off. */
function keepPartial(ctx: LoopContext, answer: ModelAnswer, note: string): void {
  if (!answer.text && !answer.reasoning) return;
  ctx.history.add({
    role: "assistant",
    content: answer.text ? `${answer.text}\n\n${note}` : note,
    ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
    finish: "error",
    ...(answer.native ? { native: answer.native } : {}),
  });
}
