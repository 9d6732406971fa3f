// Compaction, in two steps (pure functions for the decisions, and
// compactContext, which applies them to a loop's history and session log):
//   1. prune: old tool outputs are replaced by a placeholder, keeping the most
//      recent ones (they are the bulk of a coding session's context and the
//      least useful once acted upon);
//   2. summarize: if that is not enough (or on /compact), the older history is
//      replaced by a structured summary written by the model (goal, decisions,
//      files touched, open work), and the most recent messages are kept verbatim.
import type { ChatMessage, FinishReason, Usage } from "./providers/types.js";
import { preCompactHook, hookNoticeEvent } from "./hookCalls.js";
import { now, summaryEntry, withContent, type ContextEntry } from "./session.js";
import type { AgentEvent } from "./events.js";
import { usageOf, type UsageAccount } from "./cost.js";
import { contextWindow, countUsage, emit, estimateContextTokens, type LoopContext } from "./loopContext.js";
import { estimateMessageTokens } from "./tokens.js";
import { cutMiddle } from "./truncate.js";
import { findTool } from "../tools/registry.js";
import {
  AGENT_COMPACT_KEEP_FRACTION,
  AGENT_COMPACT_MIN_GAIN_FRACTION,
  AGENT_PRUNE_PROTECT_FRACTION,
  AGENT_SUMMARY_INPUT_FRACTION,
} from "../base/limits.js";

export const PRUNED_PLACEHOLDER =
  "[output pruned to save context; the session log keeps the full text. Run the call again if you need it.]";
/** Outputs shorter than this are not worth pruning. */
const PRUNE_MIN_CHARS = 400;
/** Each message's share of the summary transcript. */
const TRANSCRIPT_MESSAGE_MAX_CHARS = 3_000;

function isToolOutput(e: ContextEntry): boolean {
  return e.message.role === "tool" || e.origin === "tool_output" || e.origin === "user_command";
}

/**
 * Log indices of the tool outputs to prune: every sizeable output except the
 * most recent ones, which are protected up to `protectTokens`.
 */
export function outputsToPrune(context: readonly ContextEntry[], protectTokens: number): number[] {
  const out: number[] = [];
  let protectedTokens = 0;
  // Outputs after the last assistant message have not been seen by the model yet: never pruned.
  let unseenFrom = context.length;
  for (let j = context.length - 1; j >= 0 && context[j].message.role !== "assistant"; j--) unseenFrom = j;
  for (let j = context.length - 1; j >= 0; j--) {
    const e = context[j];
    if (!isToolOutput(e) || e.i === undefined) continue;
    const tokens = estimateMessageTokens(e.message);
    if (j >= unseenFrom || protectedTokens + tokens <= protectTokens) {
      protectedTokens += tokens;
      continue;
    }
    protectedTokens = protectTokens; // once one is pruned, every older one is too
    if (e.message.content.length >= PRUNE_MIN_CHARS && e.message.content !== PRUNED_PLACEHOLDER) out.push(e.i);
  }
  return out.reverse();
}

/**
 * Where the verbatim tail of the context starts: the most recent messages that
 * fit in `keepTokens` (at least the last one), moved so that the tail never
 * starts with a tool result (its call must stay with it). 0: nothing to summarize.
 */
export function keepFrom(context: readonly ContextEntry[], keepTokens: number): number {
  if (context.length === 0) return 0;
  let k = context.length - 1;
  let tokens = estimateMessageTokens(context[k].message);
  while (k > 0) {
    const t = estimateMessageTokens(context[k - 1].message);
    if (tokens + t > keepTokens) break;
    tokens += t;
    k--;
  }
  let j = k;
  while (j < context.length && context[j].message.role === "tool") j++;
  if (j < context.length) return j;
  while (k > 0 && context[k].message.role === "tool") k--;
  return k;
}

/** Paths changed by the editing tool calls (and `rt edit`-style commands) in these messages. */
export function filesTouched(entries: readonly ContextEntry[]): string[] {
  const files = new Set<string>();
  for (const e of entries) {
    const m = e.message;
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls ?? []) {
      const tool = findTool(c.name);
      if (!tool || tool.readOnly) continue;
      try {
        const args = JSON.parse(c.arguments) as Record<string, unknown>;
        if (typeof args.path === "string") files.add(args.path);
      } catch {
        /* invalid arguments: the call failed anyway */
      }
    }
    for (const match of m.content.matchAll(/\brt\s+(?:edit|insert|delete|undo)\s+(\S+)/g)) files.add(match[1]);
    for (const match of m.content.matchAll(
      /"action"\s*:\s*"(?:edit_file|edit|write|edit_lines|multi_edit)"[^}]*?"path"\s*:\s*"([^"]+)"/g,
    ))
      files.add(match[1]);
  }
  return [...files].sort();
}

function clip(text: string): string {
  return cutMiddle(text, TRANSCRIPT_MESSAGE_MAX_CHARS, "cut for the summary").text;
}

/** The older history as plain text for the summarizer (tool calls and results included, each clipped). */
export function transcript(entries: readonly ContextEntry[], maxChars: number): string {
  const parts: string[] = [];
  for (const e of entries) {
    const m = e.message;
    if (e.origin === "summary") parts.push(`EARLIER SUMMARY:\n${m.content}`);
    else if (e.origin === "tool_output") parts.push(`COMMAND OUTPUT:\n${clip(m.content)}`);
    else if (m.role === "user") parts.push(`USER:\n${m.content}`);
    else if (m.role === "assistant") {
      const calls = (m.toolCalls ?? []).map(
        (c) => `→ ${c.name} ${c.arguments.length > 500 ? `${c.arguments.slice(0, 500)}…` : c.arguments}`,
      );
      parts.push(`ASSISTANT:\n${[clip(m.content), ...calls].filter(Boolean).join("\n")}`);
    } else if (m.role === "tool")
      parts.push(`TOOL RESULT (${m.name}${m.isError ? ", failed" : ""}):\n${clip(m.content)}`);
  }
  return cutMiddle(parts.join("\n\n"), maxChars, "the middle of the transcript was left out").text;
}

const SUMMARIZER_SYSTEM =
  "You summarize the earlier part of a coding session between a user and a coding agent, so that the agent can continue the work with only your summary and the most recent messages. Be factual and specific: exact file paths, function names, commands, error messages, numbers. Never invent anything.";

/** The request that asks the model for the summary. */
export function summaryMessages(text: string, files: string[], instructions?: string): ChatMessage[] {
  const prompt = [
    "Here is the earlier part of the session:",
    "",
    "<transcript>",
    text,
    "</transcript>",
    "",
    "Write a summary of it with exactly these sections:",
    "",
    "## Goal",
    "What the user wants, in their terms, including constraints they gave.",
    "## Decisions",
    "What was found and decided, and why (approaches chosen or rejected).",
    "## Files touched",
    `Every file read in depth or changed, and what changed.${files.length ? ` Files changed by tool calls: ${files.join(", ")}.` : ""}`,
    "## Open work",
    "What remains to be done, next steps, and any unresolved errors.",
    ...(instructions ? ["", `Additional instructions from the user for this summary: ${instructions}`] : []),
  ].join("\n");
  return [
    { role: "system", content: SUMMARIZER_SYSTEM },
    { role: "user", content: prompt },
  ];
}

// ---- applying it to a loop ------------------------------------------------------------

/** Compacts before a model request when the context has reached the threshold of the window. */
export async function* compactIfNeeded(
  ctx: LoopContext,
  turn: UsageAccount,
  signal: AbortSignal | undefined,
): AsyncGenerator<AgentEvent> {
  const window = await contextWindow(ctx);
  if (estimateContextTokens(ctx) < ctx.limits.compactThreshold * window) return;
  yield* compactContext(ctx, "auto", undefined, signal, turn);
}

/**
 * Prunes old tool outputs, then (manual, or auto when pruning was not enough)
 * replaces the older history by a summary the model writes. Auto keeps the
 * most recent messages verbatim; manual (/compact [instructions]) summarizes
 * everything. The summary request's usage counts for `turn` when given.
 */
export async function* compactContext(
  ctx: LoopContext,
  reason: "auto" | "manual",
  instructions: string | undefined,
  signal: AbortSignal | undefined,
  turn?: UsageAccount,
): AsyncGenerator<AgentEvent> {
  // Hooks (hookCalls.ts): a PreCompact hook may block the compaction.
  const hook = await preCompactHook(ctx, reason, instructions, signal);
  for (const n of hook.notices) yield emit(ctx, hookNoticeEvent(n));
  if (hook.block) {
    yield emit(ctx, { type: "notice", message: `a PreCompact hook blocked the ${reason} compaction: ${hook.block}` });
    return;
  }
  const history = ctx.history;
  const window = await contextWindow(ctx);
  const threshold = ctx.limits.compactThreshold;
  const before = estimateContextTokens(ctx);
  yield emit(ctx, { type: "compact_start", reason, tokens: before, context_window: window });

  const prune = outputsToPrune(history.context, Math.floor(window * AGENT_PRUNE_PROTECT_FRACTION));
  if (prune.length) {
    history.log.append({ t: "prune", indices: prune, placeholder: PRUNED_PLACEHOLDER, ts: now() });
    const set = new Set(prune);
    history.replace(
      history.context.map((e) =>
        e.i !== undefined && set.has(e.i) ? { ...e, message: withContent(e.message, PRUNED_PLACEHOLDER) } : e,
      ),
    );
  }

  let summarized = false;
  if (reason === "manual" || estimateContextTokens(ctx) >= threshold * window) {
    const context = history.context;
    const k =
      reason === "manual" ? context.length : keepFrom(context, Math.floor(window * AGENT_COMPACT_KEEP_FRACTION));
    const old = context.slice(0, k);
    // Auto: when the system prompt and tools are most of the window, summarizing a few messages each turn gains nothing.
    const oldTokens = old.reduce((sum, e) => sum + estimateMessageTokens(e.message), 0);
    if (old.length > 0 && (reason === "manual" || oldTokens >= window * AGENT_COMPACT_MIN_GAIN_FRACTION)) {
      const maxChars = Math.floor(window * AGENT_SUMMARY_INPUT_FRACTION) * 4;
      const messages = summaryMessages(transcript(old, maxChars), filesTouched(old), instructions);
      const summary = yield* summarize(ctx, messages, signal, turn);
      if (summary) {
        const keep = history.context.slice(k);
        const keepFromIndex = keep.length ? (keep[0].i ?? history.log.messageCount) : history.log.messageCount;
        history.log.append({ t: "compaction", summary, keep_from: keepFromIndex, ts: now() });
        history.replace([summaryEntry(summary), ...keep]);
        summarized = true;
      }
    }
  }
  yield emit(ctx, {
    type: "compact_end",
    tokens_before: before,
    tokens_after: estimateContextTokens(ctx),
    pruned: prune.length,
    summarized,
  });
}

/** Asks the model for the summary (no tools, not streamed to the face). Undefined when it failed. */
async function* summarize(
  ctx: LoopContext,
  messages: ChatMessage[],
  signal: AbortSignal | undefined,
  turn: UsageAccount | undefined,
): AsyncGenerator<AgentEvent, string | undefined> {
  let text = "";
  let usage: Usage | undefined;
  let finish: FinishReason | undefined;
  try {
    const window = await contextWindow(ctx);
    for await (const part of ctx.model.provider.stream({
      model: ctx.model.model,
      messages,
      contextWindow: window,
      ...(signal ? { signal } : {}),
    })) {
      if (part.type === "text") text += part.delta;
      else if (part.type === "usage") usage = part.usage;
      else if (part.type === "finish") finish = part.reason;
    }
  } catch (e) {
    countUsage(ctx, turn, usageOf(usage));
    yield emit(ctx, {
      type: "notice",
      message: `compaction: the model could not write the summary (${(e as Error).message}); older messages were kept`,
    });
    return undefined;
  }
  countUsage(ctx, turn, usageOf(usage));
  if (text.trim() === "" || finish === "refusal" || finish === "content_filter") {
    const why = text.trim() === "" ? "returned an empty summary" : `did not write the summary (${finish})`;
    yield emit(ctx, { type: "notice", message: `compaction: the model ${why}; older messages were kept` });
    return undefined;
  }
  // A summary cut at the output limit is still most of one; the mark says what is missing.
  return finish === "length" ? `${text.trim()}\n\n[rt: this summary was cut off at the output limit]` : text.trim();
}
