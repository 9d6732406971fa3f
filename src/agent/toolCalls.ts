// One batch of tool calls: the calls of one model answer (native calls, or text
// mode's actions), each checked by the policy (policy.prepareCall: the tool
// found once, the arguments validated against its schema, the profile's rules
// applied), then the approvals (the user is asked only about a call that
// passed those checks), then run; every result goes into the history as soon
// as it exists. Read-only calls run in parallel; a call that writes runs alone,
// in order. AGENT_LOOP_REPEAT_LIMIT identical consecutive calls stop the turn.
import { modelAsker } from "./askModel.js";
import type { ChatImage, ToolCall } from "./providers/types.js";
import { imageInputFor } from "./imageInput.js";
import type { AgentEvent, AgentStreamEvent, Protocol } from "./events.js";
import { isLoopTool, type LoopToolResult } from "./sessionTools/loopTool.js";
import { categoryOf, describeCall } from "./approval.js";
import { actionHeader, type TextAction } from "./textProtocol.js";
import { EventQueue } from "./eventQueue.js";
import { withReports } from "./editChecks.js";
import { fitToolOutput } from "./outputSaving.js";
import { PAGED_TOOLS } from "./toolSet.js";
import { emit, errorEvent, type LoopContext, type TurnState } from "./loopContext.js";
import { preToolUseHook, postToolUseHook, hookNoticeEvent } from "./hookCalls.js";
import { prepareCall, runPreparedCall, warmEdit, type Preparation } from "../tools/policy.js";
import { jsonSchemaOf } from "../tools/registry.js";
import type { Tool, ToolResult } from "../tools/types.js";
import { AGENT_LOOP_REPEAT_LIMIT, AGENT_PAGED_OUTPUT_WINDOW_SHARE } from "../base/limits.js";
import { CHARS_PER_TOKEN } from "./tokens.js";

/** Arguments that could not be read as a JSON object: why, and the text as the model wrote it. */
export interface UnreadableArguments {
  invalid: string;
  raw: string;
}

/** One call to run: a native tool call or a text-mode action. */
export interface PendingCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them, or why they could not be read. */
  args: Record<string, unknown> | UnreadableArguments;
  protocol: Protocol;
  /** Text mode: the line shown above its output. */
  header?: string;
}

export const INTERRUPTED_RESULT = "interrupted by the user: not run";

export function isUnreadable(a: PendingCall["args"]): a is UnreadableArguments {
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

/** A native tool call as a call to run. */
export function nativeCall(c: ToolCall): PendingCall {
  return { id: c.id, name: c.name, args: parseArguments(c.arguments), protocol: "tools" };
}

/** A text-mode action (a fenced bash block, a JSON action) as a call to run. */
export function textCall(ctx: LoopContext, a: TextAction): PendingCall {
  const id = ctx.nextCallId("text-");
  const header = actionHeader(a);
  if (a.kind === "bash") return { id, name: "bash", args: { command: a.command }, protocol: "text", header };
  if (a.kind === "tool") return { id, name: a.name, args: a.args, protocol: "text", header };
  return { id, name: "action", args: { invalid: a.error, raw: a.raw }, protocol: "text", header };
}

/** Stable text of a call for loop detection: name + arguments with sorted keys. */
function signatureOf(name: string, args: unknown): string {
  const canon = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
        )
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

/** A call with what the policy made of it: its tool (when found) and, for readable arguments, the preparation. */
interface CheckedCall {
  call: PendingCall;
  tool?: Tool;
  prepared?: Preparation;
}

/** Looks each call's tool up once: through prepareCall when its arguments are readable, else only for the schema hint. */
function check(ctx: LoopContext, call: PendingCall): CheckedCall {
  if (isUnreadable(call.args)) {
    const tool = ctx.tools.lookup.find(call.name);
    return { call, ...(tool ? { tool } : {}) };
  }
  const prepared = prepareCall(ctx.workspace, call.name, call.args, ctx.tools.lookup);
  const tool = prepared.ok ? prepared.call.tool : prepared.tool;
  return { call, ...(tool ? { tool } : {}), prepared };
}

/** How a batch of calls ended: go on with the next model request, stop the turn (the event was yielded), or end it with an answer. */
export type CallsOutcome = { kind: "continue" } | { kind: "stopped" } | { kind: "answered"; text: string };

/** Where a call's events go: its loop's log and stream (emit), or only the stream (forward: a subagent's events). */
interface CallIo {
  emit(ev: AgentEvent): void;
  forward(ev: AgentStreamEvent): void;
}

/**
 * Runs the calls of one model answer: loop detection first (calls from the
 * repeated one on are not run), then batches (consecutive read-only native
 * calls together, in parallel; anything else alone), each result added to
 * the history as soon as it exists.
 */
export async function* runToolCalls(
  ctx: LoopContext,
  calls: PendingCall[],
  turn: TurnState,
  signal: AbortSignal | undefined,
): AsyncGenerator<AgentEvent, CallsOutcome> {
  let stopAt = -1;
  let repeated = "";
  for (let j = 0; j < calls.length; j++) {
    const c = calls[j];
    const sig = signatureOf(c.name, isUnreadable(c.args) ? c.args.raw : c.args);
    if (turn.repeat(sig) >= AGENT_LOOP_REPEAT_LIMIT) {
      stopAt = j;
      repeated = sig;
      break;
    }
  }
  const runnable = (stopAt === -1 ? calls : calls.slice(0, stopAt)).map((c) => check(ctx, c));
  let interrupted = false;
  let answer: string | undefined;
  for (const batch of batches(runnable)) {
    if (signal?.aborted) interrupted = true;
    if (interrupted || answer !== undefined) {
      // After an answer that ends the turn (exit_plan_mode in rt run), the answer's other calls are not run either.
      for (const c of batch)
        addResult(
          ctx,
          c.call,
          interrupted ? INTERRUPTED_RESULT : "not run: the turn ended with the plan as its answer",
          true,
        );
      continue;
    }
    const queue = new EventQueue<AgentStreamEvent>();
    const io: CallIo = { emit: (ev) => queue.push(emit(ctx, ev)), forward: (ev) => queue.push(ev) };
    void Promise.all(
      batch.map(async (c) => {
        const out = await executeCall(ctx, c, io, signal, turn);
        addResult(ctx, c.call, out.text, !out.success, out.images);
        if (out.answer !== undefined) answer ??= out.answer;
      }),
    ).finally(() => queue.close());
    yield* queue.drain();
  }
  if (stopAt !== -1) {
    for (const c of calls.slice(stopAt))
      addResult(ctx, c, `not run: loop detected (the same call ${AGENT_LOOP_REPEAT_LIMIT} times in a row)`, true);
    yield emit(
      ctx,
      errorEvent(
        ctx,
        turn,
        "loop_detected",
        `loop detected: the model made the same call ${AGENT_LOOP_REPEAT_LIMIT} times in a row (${repeated.length > 300 ? `${repeated.slice(0, 300)}…` : repeated}); stopped this turn`,
      ),
    );
    return { kind: "stopped" };
  }
  if (interrupted || signal?.aborted) {
    yield emit(ctx, errorEvent(ctx, turn, "interrupted", "interrupted"));
    return { kind: "stopped" };
  }
  return answer !== undefined ? { kind: "answered", text: answer } : { kind: "continue" };
}

/**
 * Runs calls made inside another call (batch's invocations): checked, asked
 * about and run like the model's own, read-only ones together in parallel,
 * others alone and in order; their events go out under their own ids, and
 * their results come back to the caller instead of into the history.
 */
export async function runNestedCalls(
  ctx: LoopContext,
  calls: PendingCall[],
  io: CallIo,
  signal: AbortSignal | undefined,
  turn: TurnState,
): Promise<Array<{ success: boolean; text: string }>> {
  const checked = calls.map((c) => check(ctx, c));
  const results = new Map<CheckedCall, { success: boolean; text: string }>();
  for (const batch of batches(checked)) {
    if (signal?.aborted) {
      for (const c of batch) results.set(c, { success: false, text: INTERRUPTED_RESULT });
      continue;
    }
    await Promise.all(batch.map(async (c) => results.set(c, await executeCall(ctx, c, io, signal, turn))));
  }
  return checked.map((c) => results.get(c) as { success: boolean; text: string });
}

/**
 * Consecutive native calls that need nobody's approval (category "read") form
 * one parallel batch; every other call is a batch of its own, so approval
 * questions come one at a time (web_fetch is read-only but asks per host), as
 * is a loop tool that asks the user or changes the loop (todo_write, ask_user...).
 * Subagents (task) run in parallel with each other.
 */
function batches(calls: CheckedCall[]): CheckedCall[][] {
  const out: CheckedCall[][] = [];
  let group: CheckedCall[] = [];
  for (const c of calls) {
    const parallel =
      c.call.protocol === "tools" &&
      c.tool !== undefined &&
      categoryOf(c.tool) === "read" &&
      !isUnreadable(c.call.args) &&
      !(isLoopTool(c.tool) && c.tool.alone);
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

/** What running a call gave: its text for the model, whether it succeeded, and an answer that ends the turn. */
interface CallOutcome {
  success: boolean;
  text: string;
  answer?: string;
  /** Images the result carries (read of an image): they go into the history with it. */
  images?: ChatImage[];
}

/**
 * Runs one call. A call the approval mode refuses emits only tool_blocked. A
 * call the policy refused (unknown tool, invalid arguments, the profile) is
 * answered with the refusal, and nobody is asked about it. Otherwise the user
 * is asked when the mode says so, about the checked arguments; then
 * tool_start, the prepared call (a loop tool's runInLoop), the output cut to
 * size, tool_end.
 */
async function executeCall(
  ctx: LoopContext,
  checked: CheckedCall,
  io: CallIo,
  signal: AbortSignal | undefined,
  turn: TurnState,
): Promise<CallOutcome> {
  const { call: c, tool } = checked;
  const sink = io.emit;
  let { prepared } = checked;
  // Hooks (hookCalls.ts): PreToolUse may block the call, change its arguments, or allow it without asking.
  const pre =
    tool && prepared ? await preToolUseHook(ctx, c, prepared.ok ? prepared.call.args : c.args, signal) : undefined;
  for (const n of pre?.notices ?? []) sink(hookNoticeEvent(n));
  if (pre?.block) {
    sink({ type: "tool_blocked", id: c.id, name: c.name, args: c.args, reason: `a hook blocked it: ${pre.block}` });
    return { success: false, text: `blocked by a PreToolUse hook: ${pre.block}` };
  }
  if (pre?.prepared) prepared = pre.prepared;
  if (tool && prepared) {
    // A shell the read-only sandbox confines (plan mode's text commands, Explore and Plan subagents) runs without asking.
    const sandboxedCommand =
      tool.name === "bash" &&
      ((ctx.approvals.mode === "plan" && c.protocol === "text") ||
        (ctx.sandboxedShell && ctx.workspace.profile === "safe-read-only"));
    if (!sandboxedCommand) {
      const verdict =
        ctx.approvals.settled(tool) ??
        (pre?.allow
          ? { ok: true as const }
          : prepared.ok
            ? await ctx.approvals.check(tool, prepared.call.args, describeCall(tool.name, prepared.call.args), signal)
            : { ok: true as const });
      if (!verdict.ok) {
        // Ctrl-C while the user was being asked ends the question: the call was not refused, the turn was interrupted.
        const reason = signal?.aborted ? INTERRUPTED_RESULT : verdict.reason;
        sink({ type: "tool_blocked", id: c.id, name: c.name, args: c.args, reason });
        return { success: false, text: signal?.aborted ? reason : `blocked: ${reason}` };
      }
    }
  }
  sink({
    type: "tool_start",
    id: c.id,
    name: c.name,
    args: isUnreadable(c.args) ? c.args.raw : c.args,
    protocol: c.protocol,
  });
  const started = performance.timeOrigin + performance.now();
  const finish = (
    success: boolean,
    result: string,
    error?: string,
    saved?: string,
    answer?: string,
    images?: ChatImage[],
  ): CallOutcome => {
    // What the language server found about earlier edits since the last result goes with this one.
    const output = withReports(result, ctx.editChecks.take());
    const ended = performance.timeOrigin + performance.now();
    sink({
      type: "tool_end",
      id: c.id,
      name: c.name,
      success,
      output,
      ...(error ? { error } : {}),
      ...(saved ? { saved_output: saved } : {}),
      started_at: started,
      ended_at: ended,
    });
    return { success, text: output, ...(answer !== undefined ? { answer } : {}), ...(images ? { images } : {}) };
  };
  if (isUnreadable(c.args) || !prepared) {
    const invalid = isUnreadable(c.args) ? c.args.invalid : "the arguments could not be read";
    const schema = tool ? `\nschema: ${JSON.stringify(jsonSchemaOf(tool))}` : "";
    return finish(false, `error: ${invalid}${schema}`, invalid);
  }
  if (signal?.aborted) return finish(false, INTERRUPTED_RESULT, "interrupted");
  let result: LoopToolResult;
  if (!prepared.ok) result = prepared.refusal;
  else if (isLoopTool(prepared.call.tool)) {
    try {
      result = await prepared.call.tool.runInLoop(ctx, prepared.call.args, {
        id: c.id,
        turn,
        ...(signal ? { signal } : {}),
        emit: io.emit,
        forward: io.forward,
      });
    } catch (e) {
      result = { success: false, output: "", error: `${c.name} failed: ${(e as Error)?.message ?? String(e)}` };
    }
  } else {
    await ctx.interaction.beforeTool?.(prepared.call.tool.name, prepared.call.args).catch(() => undefined);
    // A tool that pages is asked for at most what the model will be given (less room for a hook's note).
    const paged = PAGED_TOOLS[prepared.call.tool.name];
    const budget = paged === "budget" ? { outputBudget: pagedBudget(ctx) - PAGED_NOTE_RESERVE } : {};
    result = await runPreparedCall(prepared.call, {
      ...(signal ? { signal } : {}),
      editDiagnostics: true,
      // An edit answers once written; its errors reach the model with a later result (editChecks.ts).
      editCheckLater: (check) => ctx.editChecks.add(`${c.name} call ${c.id}`, check),
      askModel: modelAsker(ctx),
      imageInput: () => imageInputFor(ctx.model),
      ...budget,
    });
    // A file the model read is the one it is likely to edit next: while it thinks, the edit's own
    // preparation of the file (its parse, its language server's errors) is done ahead.
    const path = prepared.call.args.path;
    if (result.success && WARMS_EDIT.has(prepared.call.tool.name) && typeof path === "string" && offersEditing(ctx))
      setImmediate(() => void warmEdit(prepared.call.workspace, path, { editDiagnostics: true }));
  }
  // Hooks: PostToolUse observes what ran; its reason or context is added for the model.
  const post = prepared.ok ? await postToolUseHook(ctx, c, prepared.call.args, result, signal) : undefined;
  for (const n of post?.notices ?? []) sink(hookNoticeEvent(n));
  const paged = prepared.ok && PAGED_TOOLS[prepared.call.tool.name] !== undefined;
  const max = paged ? pagedBudget(ctx) : ctx.limits.toolOutputMaxChars;
  const { text, saved } = fitToolOutput(
    ctx.workspace,
    `${resultText(result)}${post?.note ? `\n${post.note}` : ""}`,
    max,
    { sessionId: ctx.history.log.id, callId: c.id },
    paged,
  );
  return finish(
    result.success,
    text,
    result.success ? undefined : (result.error ?? "failed"),
    saved,
    result.answer,
    chatImages(result),
  );
}

/** The tools after which the file read is prepared for an edit (warmEdit). */
const WARMS_EDIT: ReadonlySet<string> = new Set(["read"]);

/** Whether the loop offers an editing tool (the tool set computes its list once). */
function offersEditing(ctx: LoopContext): boolean {
  return ctx.tools.offered.some((t) => t.editing);
}

/** Room kept in a paged tool's budget for what the agent adds after it (a hook's note, an error line). */
const PAGED_NOTE_RESERVE = 1_000;

/**
 * The characters a paged tool's output may take: the paged budget, within a share of the model's
 * context window (a small local model's 8k window takes no 72,000-character read), never below
 * the general cap.
 */
function pagedBudget(ctx: LoopContext): number {
  const window = ctx.model.contextWindow;
  const share =
    window !== undefined ? Math.floor(window * AGENT_PAGED_OUTPUT_WINDOW_SHARE * CHARS_PER_TOKEN) : Infinity;
  return Math.max(Math.min(ctx.limits.pagedOutputMaxChars, share), ctx.limits.toolOutputMaxChars);
}

/** A result's images (read of an image, a PDF's pages) as the history keeps them. */
function chatImages(r: ToolResult): ChatImage[] | undefined {
  if (!r.success || !r.images?.length) return undefined;
  return r.images.map((img) => ({
    mediaType: img.media_type,
    data: img.data_base64,
    width: img.width,
    height: img.height,
  }));
}

/** The result of a call, in the history: a tool message, or in text mode a user message. */
export function addResult(
  ctx: LoopContext,
  c: PendingCall,
  output: string,
  isError: boolean,
  images?: ChatImage[],
): void {
  const withImages = images?.length ? { images } : {};
  if (c.protocol === "tools") {
    ctx.history.add({
      role: "tool",
      toolCallId: c.id,
      name: c.name,
      content: output,
      ...(isError ? { isError } : {}),
      ...withImages,
    });
  } else {
    ctx.history.add(
      { role: "user", content: `[rt] Output of:\n${c.header ?? c.name}\n${output.trimEnd()}`, ...withImages },
      "tool_output",
    );
  }
}
