// What one agent loop runs with: its model, tools, approvals, history, limits
// and usage totals, gathered in a LoopContext that the loop's functions
// (turn.ts, toolCalls.ts, compaction.ts) take as their first argument. The
// Agent facade builds one for a session; a subagent builds its own (its own
// history, tools, system prompt and limits) and runs the same functions.
//
// Events: every function yields AgentEvents; `emit` writes each one to the
// context's session log before it is handed on, so whoever iterates the
// generator (a face, a parent agent) is the sink and the log is complete.
import type { Provider } from "./providers/types.js";
import type { FinishReason, ToolChoice } from "./providers/types.js";
import {
  zeroUsage,
  type AgentErrorKind,
  type AgentEvent,
  type Protocol,
  type TodoItem,
  type UsageTotals,
} from "./events.js";
import type { ApprovalMode, Approvals } from "./approval.js";
import type { Asker, UserInteraction } from "./interaction.js";
import { withProfile } from "./rtOnPath.js";
import { now, type ProtocolChoice } from "./session.js";
import type { History } from "./history.js";
import { charge, requestCost, type UsageAccount } from "./cost.js";
import type { Price } from "./settings.js";
import { toolSpecs, type AgentToolSet } from "./toolSet.js";
import { systemPrompt as rtSystemPrompt } from "./prompts.js";
import { requestMessages } from "./requestMessages.js";
import { estimateMessageTokens, estimateTokens } from "./tokens.js";
import { EditChecks } from "./editChecks.js";
import type { Workspace } from "../workspace/workspace.js";
import {
  AGENT_COMPACT_THRESHOLD,
  AGENT_DEFAULT_MAX_TURNS,
  AGENT_DEFAULT_SUBAGENT_DEPTH,
  AGENT_PAGED_OUTPUT_MAX_CHARS,
  AGENT_TOOL_OUTPUT_MAX_CHARS,
  DEFAULT_CONTEXT_WINDOW,
} from "../base/limits.js";

/** The model a loop talks to. */
export interface ModelBinding {
  provider: Provider;
  /** The model name sent to the provider. */
  model: string;
  /** "provider/model", as shown and recorded in the session. */
  label: string;
  price?: Price;
  /** Tokens; undefined: asked from the provider on first use, else DEFAULT_CONTEXT_WINDOW. */
  contextWindow?: number;
}

export interface LoopLimits {
  /** Model requests per user turn. */
  maxTurns: number;
  /** Characters of one tool output the model sees; the rest is saved (outputSaving.ts). */
  toolOutputMaxChars: number;
  /** Fraction of the context window at which the context is compacted. */
  compactThreshold: number;
  temperature?: number;
  maxOutputTokens?: number;
  /** Characters a pageable tool's output may take (read, open, grep...): the tool is asked for no more. */
  pagedOutputMaxChars: number;
  /** Prompt caching: the cache entries' time to live, or "off". */
  promptCache: "5m" | "1h" | "off";
  /** auto, required (the first request of each user turn must call a tool; later ones may answer), none. */
  toolChoice?: ToolChoice;
}

export interface LoopContext {
  /** Where the tools run: the base workspace, or in plan mode its safe-read-only view. */
  workspace: Workspace;
  /** The workspace as the session was started with (what an accepted plan returns to). */
  readonly baseWorkspace: Workspace;
  model: ModelBinding;
  /** agent.small_model: what tools ask a model with (web_fetch); the session's model when unset. */
  readonly smallModel?: ModelBinding;
  /** The tools; rebuilt when the approval mode changes (setApprovalMode). */
  tools: AgentToolSet;
  /** How the tool set is made for a workspace and an approval mode (undefined: fixed, as a subagent's). */
  readonly toolsFor?: (workspace: Workspace, mode: ApprovalMode) => AgentToolSet;
  readonly approvals: Approvals;
  /** What the user chose; with "auto", the loop falls back to text mode when the model cannot call tools. */
  readonly protocolChoice: ProtocolChoice;
  /** The protocol of the next request. */
  protocol: Protocol;
  readonly history: History;
  /** The session's totals (a subagent's own). */
  readonly totals: UsageAccount;
  readonly limits: LoopLimits;
  /** Bumped when the instructions files changed (a `#` note): the system prompt is made again. */
  instructionsVersion?: number;
  /** The offered tools were warmed (loaded ahead) during the loop's first model request. */
  warmed?: boolean;
  /** The system prompt for a protocol. */
  readonly systemPrompt: (protocol: Protocol) => string;
  /** A fresh id for a call that came without one (text mode's actions). */
  nextCallId(prefix: string): string;
  /** 0 for the session's agent, 1 for its subagents, and so on. */
  readonly depth: number;
  /** agent.subagent_depth: a loop at this depth cannot start subagents (1: only the main agent can). */
  readonly subagentDepth: number;
  /** What the face can ask the user beyond approvals (ask_user, plan review); empty without a face. */
  readonly interaction: UserInteraction;
  /** A subagent's loop: who it is, for the questions it asks. */
  readonly asker?: Asker;
  /** The todo list (todo_write), and the model requests made since it last changed. */
  todos: TodoItem[];
  requestsSinceTodos: number;
  /** The binding of a "provider/model" name (a subagent definition's model); absent: only `inherit` works. */
  readonly resolveModel?: (label: string) => Promise<ModelBinding>;
  /**
   * The shell runs without asking: the workspace is safe-read-only by rt's own
   * choice (plan mode's text commands, the Explore and Plan subagents), so the
   * read-only sandbox, not the user, keeps the command from changing anything.
   */
  readonly sandboxedShell: boolean;
  /**
   * Records the working tree for the user turn whose prompt is message `at`
   * (before it is sent, and when the turn ends); returns a notice when it could
   * not. Absent: no checkpoints (a subagent's loop, a session without a log).
   */
  readonly checkpoint?: (phase: "before" | "after", at: number) => string | undefined;
  /** The language-server checks of this loop's edits, running or not yet told to the model (editChecks.ts). */
  readonly editChecks: EditChecks;
}

export interface LoopContextOptions {
  workspace: Workspace;
  model: ModelBinding;
  smallModel?: ModelBinding;
  tools: AgentToolSet;
  toolsFor?: (workspace: Workspace, mode: ApprovalMode) => AgentToolSet;
  approvals: Approvals;
  protocol: ProtocolChoice;
  /** With protocol "auto": the protocol a continued session had switched to. */
  startProtocol?: Protocol;
  history: History;
  /** Totals to continue from (a resumed session's); default: zero. */
  totals?: UsageAccount;
  limits?: Partial<LoopLimits>;
  /** Default: rt's system prompt for this workspace, approval mode and tool set. */
  systemPrompt?: (protocol: Protocol) => string;
  /** The workspace before plan mode's profile (default: workspace). */
  baseWorkspace?: Workspace;
  depth?: number;
  subagentDepth?: number;
  interaction?: UserInteraction;
  asker?: Asker;
  todos?: TodoItem[];
  resolveModel?: (label: string) => Promise<ModelBinding>;
  sandboxedShell?: boolean;
  checkpoint?: (phase: "before" | "after", at: number) => string | undefined;
}

/**
 * rt's own system prompt (prompts/), made once per protocol and approval mode
 * (the tools offered change with the mode: setApprovalMode), for the tools
 * offered when it is made. It is asked for on every request and estimate, so
 * the offered list is not recomputed each time.
 */
export function defaultSystemPrompt(ctx: () => LoopContext): (protocol: Protocol) => string {
  const made = new Map<string, string>();
  return (protocol) => {
    const { workspace: ws, approvals, tools } = ctx();
    const c = ctx();
    // A `#` note changes the instructions the prompt holds: it is made again (instructionsVersion).
    const key = `${protocol} ${approvals.mode} ${c.instructionsVersion ?? 0}`;
    let p = made.get(key);
    if (!p) {
      p = rtSystemPrompt({
        root: ws.root,
        protocol,
        profile: ws.profile,
        plan: approvals.mode === "plan",
        toolNames: tools.offered.map((t) => t.name),
        env: ws.env,
      });
      made.set(key, p);
    }
    return p;
  };
}

export function createLoopContext(o: LoopContextOptions): LoopContext {
  let calls = 0;
  const ctx: LoopContext = {
    workspace: o.workspace,
    baseWorkspace: o.baseWorkspace ?? o.workspace,
    model: { ...o.model },
    ...(o.smallModel ? { smallModel: { ...o.smallModel } } : {}),
    tools: o.tools,
    ...(o.toolsFor ? { toolsFor: o.toolsFor } : {}),
    approvals: o.approvals,
    protocolChoice: o.protocol,
    protocol: o.protocol === "auto" ? (o.startProtocol ?? "tools") : o.protocol,
    history: o.history,
    totals: o.totals ?? { usage: zeroUsage() },
    limits: {
      maxTurns: o.limits?.maxTurns ?? AGENT_DEFAULT_MAX_TURNS,
      toolOutputMaxChars: o.limits?.toolOutputMaxChars ?? AGENT_TOOL_OUTPUT_MAX_CHARS,
      compactThreshold: o.limits?.compactThreshold ?? AGENT_COMPACT_THRESHOLD,
      pagedOutputMaxChars: o.limits?.pagedOutputMaxChars ?? AGENT_PAGED_OUTPUT_MAX_CHARS,
      promptCache: o.limits?.promptCache ?? "5m",
      ...(o.limits?.temperature !== undefined ? { temperature: o.limits.temperature } : {}),
      ...(o.limits?.maxOutputTokens !== undefined ? { maxOutputTokens: o.limits.maxOutputTokens } : {}),
      ...(o.limits?.toolChoice !== undefined ? { toolChoice: o.limits.toolChoice } : {}),
    },
    systemPrompt: o.systemPrompt ?? defaultSystemPrompt(() => ctx),
    nextCallId: (prefix) => `${prefix}${++calls}`,
    depth: o.depth ?? 0,
    subagentDepth: o.subagentDepth ?? AGENT_DEFAULT_SUBAGENT_DEPTH,
    interaction: o.interaction ?? {},
    ...(o.asker ? { asker: o.asker } : {}),
    todos: o.todos ?? [],
    requestsSinceTodos: 0,
    ...(o.resolveModel ? { resolveModel: o.resolveModel } : {}),
    sandboxedShell: o.sandboxedShell ?? false,
    ...(o.checkpoint ? { checkpoint: o.checkpoint } : {}),
    editChecks: new EditChecks(),
  };
  return ctx;
}

/**
 * Switches the approval mode (an accepted plan leaves plan mode): the
 * workspace goes back to the session's own (plan mode's is safe-read-only),
 * the tools are offered again for the new mode, and it is recorded.
 */
export function setApprovalMode(ctx: LoopContext, mode: ApprovalMode): void {
  ctx.approvals.setMode(mode);
  ctx.workspace = mode === "plan" ? withProfile(ctx.baseWorkspace, "safe-read-only") : ctx.baseWorkspace;
  if (ctx.toolsFor) ctx.tools = ctx.toolsFor(ctx.workspace, mode);
  ctx.history.log.append({ t: "approval", mode, ts: now() });
}

/** State of one user turn: model requests made, what they used, how the last one ended, the repeat counter. */
export class TurnState implements UsageAccount {
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

/** Writes an event to the session log (deltas as delta records; tool output lives in the messages) and returns it. */
export function emit<E extends AgentEvent>(ctx: LoopContext, ev: E): E {
  const log = ctx.history.log;
  if (ev.type === "text" || ev.type === "reasoning") log.append({ t: "delta", kind: ev.type, delta: ev.delta });
  else if (ev.type === "tool_end") log.append({ t: "event", event: { ...ev, output: "" }, ts: now() });
  else log.append({ t: "event", event: ev, ts: now() });
  return ev;
}

/** The context window in tokens: configured, else what the provider reports (asked once), else DEFAULT_CONTEXT_WINDOW. */
export async function contextWindow(ctx: LoopContext): Promise<number> {
  const m = ctx.model;
  if (m.contextWindow === undefined) {
    let reported: number | undefined;
    try {
      reported = await m.provider.contextWindow?.(m.model);
    } catch {
      reported = undefined;
    }
    m.contextWindow = reported ?? DEFAULT_CONTEXT_WINDOW;
  }
  return m.contextWindow;
}

/** Tokens the next request will take: the provider's last count plus what was added since, or an estimate. */
export function estimateContextTokens(ctx: LoopContext): number {
  const protocol = ctx.protocol;
  const context = ctx.history.context;
  const estimate = estimateTokens(
    requestMessages(ctx.systemPrompt(protocol), context, protocol),
    protocol === "tools" ? toolSpecs(ctx.tools) : [],
  );
  const reported = ctx.history.reported;
  if (!reported || reported.length > context.length) return estimate;
  let added = 0;
  for (const e of context.slice(reported.length)) added += estimateMessageTokens(e.message);
  return Math.max(estimate, reported.tokens + added);
}

/** Switches the protocol of the next requests (auto's fallback to text mode), and records it. */
export function setProtocol(ctx: LoopContext, p: Protocol): void {
  ctx.protocol = p;
  ctx.history.reported = undefined;
  ctx.history.log.append({ t: "protocol", protocol: p, ts: now() });
}

/** Switches model (/model), and records it. With protocol auto, tools are tried again. */
export function setModel(ctx: LoopContext, model: ModelBinding): void {
  ctx.model = { ...model };
  ctx.history.reported = undefined;
  ctx.history.log.append({ t: "model", model: model.label, ts: now() });
  if (ctx.protocolChoice === "auto" && ctx.protocol !== "tools") setProtocol(ctx, "tools");
}

/** Adds a subagent's whole usage to the turn and the session (its own log has each request), and logs it for the session's totals. */
export function countSubagentUsage(
  ctx: LoopContext,
  turn: UsageAccount,
  used: UsageTotals,
  cost: number | undefined,
  model: string,
  toolUseId: string,
): void {
  charge(used, cost, turn, ctx.totals);
  ctx.history.log.append({
    t: "usage",
    usage: used,
    ...(cost !== undefined ? { cost } : {}),
    model,
    subagent: toolUseId,
    ts: now(),
  });
}

/** Adds one request's usage to the turn (when there is one) and the session, and logs it. */
export function countUsage(ctx: LoopContext, turn: UsageAccount | undefined, used: UsageTotals): void {
  const cost = requestCost(used, ctx.model.price);
  charge(used, cost, ...(turn ? [turn] : []), ctx.totals);
  ctx.history.log.append({
    t: "usage",
    usage: used,
    ...(cost !== undefined ? { cost } : {}),
    model: ctx.model.label,
    ts: now(),
  });
}

export function completeEvent(ctx: LoopContext, turn: TurnState): AgentEvent {
  return {
    type: "turn_complete",
    session_id: ctx.history.log.id,
    text: turn.lastText,
    model_turns: turn.modelTurns,
    finish_reason: turn.lastFinish,
    protocol: ctx.protocol,
    usage: turn.usage,
    session_usage: ctx.totals.usage,
    ...(turn.cost !== undefined ? { cost: turn.cost } : {}),
    ...(ctx.totals.cost !== undefined ? { session_cost: ctx.totals.cost } : {}),
  };
}

export function errorEvent(
  ctx: LoopContext,
  turn: TurnState,
  kind: AgentErrorKind,
  message: string,
  finish?: FinishReason,
): AgentEvent {
  return {
    type: "error",
    kind,
    message,
    session_id: ctx.history.log.id,
    ...(finish ? { finish_reason: finish } : {}),
    usage: turn.usage,
    session_usage: ctx.totals.usage,
  };
}
