// Where the agent loop runs hooks (src/extensions/hooks.ts runs them):
// one function per event, each called from one place in turn.ts, toolCalls.ts
// or compaction.ts, so that those files change by a line or two. A session's
// hooks are read the first time one is needed: rt's configuration's `hooks`,
// then Claude Code's settings files (claudeSettings.ts); all of them run.
// A subagent's loop runs SubagentStop where the session's runs Stop, and no
// UserPromptSubmit or SessionStart (its prompt is the parent's, not the user's).
import type { LoopContext } from "./loopContext.js";
/** A tool call as the loop holds it (toolCalls.ts PendingCall): a PreToolUse hook may replace its arguments. */
interface HookedCall {
  id: string;
  name: string;
  args: unknown;
}
import type { ToolResult } from "../tools/types.js";
import { prepareCall, type Preparation } from "../tools/policy.js";
import { Hooks, parseHooks, type HookEvent, type HookOutcome, type HookedTool } from "../extensions/hooks.js";
import { loadClaudeSettingsHooks } from "../extensions/claudeSettings.js";
import { loadConfig } from "../base/config.js";
import { HOOK_STOP_MAX_CONTINUES } from "../base/limits.js";

interface SessionHooks {
  hooks: Hooks;
  started: boolean;
  /** Problems of the configuration, said once. */
  pending: string[];
}

/** What the hooks of an event left for the user: `warning` ones (failures, configuration problems) go to stderr. */
export interface HookNotice {
  message: string;
  warning?: true;
}

/** The agent event that says a hook notice. */
export function hookNoticeEvent(n: HookNotice): { type: "notice"; message: string; level?: "warning" } {
  return { type: "notice", message: n.message, ...(n.warning ? { level: "warning" as const } : {}) };
}

function noticesOf(o: HookOutcome): HookNotice[] {
  return [
    ...o.warnings.map((message) => ({ message, warning: true as const })),
    ...o.notices.map((message) => ({ message })),
  ];
}

const byContext = new WeakMap<LoopContext, SessionHooks>();
/** Tools a custom slash command's allowed-tools pre-approves for the turn it started. */
const turnAllowed = new WeakMap<LoopContext, Set<string>>();

/** Pre-approves these tools (by name) for the turn now starting; returns the function that ends it. */
export function allowToolsForTurn(ctx: LoopContext, names: readonly string[] | undefined): () => void {
  if (!names?.length) return () => {};
  turnAllowed.set(ctx, new Set(names));
  return () => turnAllowed.delete(ctx);
}

function sessionHooks(ctx: LoopContext): SessionHooks {
  let s = byContext.get(ctx);
  if (!s) {
    let value: unknown;
    const pending: string[] = [];
    try {
      value = (loadConfig(ctx.workspace) as { hooks?: unknown }).hooks;
    } catch {
      value = undefined; // the agent command reports configuration errors itself
    }
    const own = parseHooks(value);
    const claude = loadClaudeSettingsHooks(ctx.workspace);
    const problems = [...own.problems, ...claude.problems];
    for (const p of problems)
      pending.push(`hooks in ${p.source ?? "rt's configuration"}: ${p.where}: ${p.message} (skipped)`);
    s = { hooks: new Hooks([own.config, ...claude.configs], problems), started: false, pending };
    byContext.set(ctx, s);
  }
  return s;
}

const PERMISSION_MODES: Record<string, string> = {
  ask: "default",
  "auto-edit": "acceptEdits",
  auto: "bypassPermissions",
  never: "dontAsk",
  plan: "plan",
};

async function run(
  ctx: LoopContext,
  event: HookEvent,
  input: Record<string, unknown>,
  target: string | undefined,
  signal?: AbortSignal,
  tool?: HookedTool,
): Promise<HookOutcome> {
  const s = sessionHooks(ctx);
  const empty: HookOutcome = { context: [], notices: [], warnings: s.pending.splice(0), ran: 0 };
  if (!s.hooks.has(event)) return empty;
  const id = ctx.history.log.id;
  // The log's own file: a subagent's is its sidechain, and a session without .rt/ state has none.
  const common = {
    session_id: id,
    transcript_path: ctx.history.log.file ?? "",
    permission_mode: PERMISSION_MODES[ctx.approvals.mode] ?? ctx.approvals.mode,
  };
  const outcome = await s.hooks.run(
    event,
    { ...common, ...input },
    target,
    { root: ctx.workspace.root, env: ctx.workspace.env, ...(signal ? { signal } : {}) },
    tool,
  );
  outcome.warnings.unshift(...empty.warnings);
  return outcome;
}

export interface PreToolUseDecision {
  /** The call is not run: tell the model this. */
  block?: string;
  /** The call with the hook's arguments, checked again by the policy. */
  prepared?: Preparation;
  /** permissionDecision "allow": run without asking. */
  allow?: boolean;
  notices: HookNotice[];
}

/** PreToolUse: may block the call, or change its arguments (checked by the policy again, so a hook cannot pass what the tool refuses). */
export async function preToolUseHook(
  ctx: LoopContext,
  call: HookedCall,
  args: unknown,
  signal?: AbortSignal,
): Promise<PreToolUseDecision> {
  const o = await run(ctx, "PreToolUse", { tool_use_id: call.id }, call.name, signal, {
    name: call.name,
    input: args,
  });
  if (o.block) return { block: o.block, notices: noticesOf(o) };
  const preApproved = turnAllowed.get(ctx)?.has(call.name) === true;
  const out: PreToolUseDecision = { notices: noticesOf(o), ...(o.allow || preApproved ? { allow: true } : {}) };
  if (o.updatedInput) {
    out.prepared = prepareCall(ctx.workspace, call.name, o.updatedInput, ctx.tools.lookup);
    call.args = o.updatedInput;
  }
  return out;
}

/** PostToolUse: observes the result; decision "block" with a reason and additionalContext are added to what the model reads. */
export async function postToolUseHook(
  ctx: LoopContext,
  call: HookedCall,
  args: unknown,
  result: ToolResult,
  signal?: AbortSignal,
): Promise<{ note?: string; notices: HookNotice[] }> {
  const o = await run(ctx, "PostToolUse", { tool_use_id: call.id }, call.name, signal, {
    name: call.name,
    input: args,
    response: result,
  });
  const parts = [...(o.block ? [`[hook] ${o.block}`] : []), ...o.context.map((c) => `[hook] ${c}`)];
  return { ...(parts.length ? { note: parts.join("\n") } : {}), notices: noticesOf(o) };
}

/** SessionStart (once per session, before its first prompt) and UserPromptSubmit: may block the prompt; their context goes with it. */
export async function userPromptHooks(
  ctx: LoopContext,
  prompt: string,
  signal?: AbortSignal,
): Promise<{ block?: string; prompt: string; stop?: string; notices: HookNotice[] }> {
  // A subagent's prompt is written by its parent, not submitted by the user.
  if (ctx.depth > 0) return { prompt, notices: [] };
  const s = sessionHooks(ctx);
  const notices: HookNotice[] = [];
  const context: string[] = [];
  if (!s.started) {
    s.started = true;
    const start = await run(
      ctx,
      "SessionStart",
      { source: ctx.history.log.messageCount > 0 ? "resume" : "startup" },
      ctx.history.log.messageCount > 0 ? "resume" : "startup",
      signal,
    );
    notices.push(...noticesOf(start));
    context.push(...start.context);
  }
  const o = await run(ctx, "UserPromptSubmit", { prompt }, undefined, signal);
  notices.push(...noticesOf(o));
  if (o.block) return { block: o.block, prompt, notices };
  context.push(...o.context);
  return {
    prompt: context.length
      ? `${prompt}\n\n${context.map((c) => `<hook-context>\n${c}\n</hook-context>`).join("\n")}`
      : prompt,
    ...(o.stop ? { stop: o.stop } : {}),
    notices,
  };
}

/**
 * Stop (SubagentStop in a subagent's loop): a hook that blocks sends the model
 * back to work with its reason (at most HOOK_STOP_MAX_CONTINUES times a turn).
 */
export async function stopHook(
  ctx: LoopContext,
  continues: number,
  lastText: string,
  signal?: AbortSignal,
): Promise<{ continueWith?: string; notices: HookNotice[] }> {
  const event = ctx.depth > 0 ? "SubagentStop" : "Stop";
  const o = await run(
    ctx,
    event,
    { stop_hook_active: continues > 0, last_assistant_message: lastText },
    undefined,
    signal,
  );
  if (o.block && continues < HOOK_STOP_MAX_CONTINUES) return { continueWith: o.block, notices: noticesOf(o) };
  if (o.block)
    o.warnings.push(`a ${event} hook blocked again after ${HOOK_STOP_MAX_CONTINUES} continuations; the turn ends`);
  return { notices: noticesOf(o) };
}

/** PreCompact: may block a compaction (exit 2 or decision "block"). */
export async function preCompactHook(
  ctx: LoopContext,
  trigger: "auto" | "manual",
  instructions: string | undefined,
  signal?: AbortSignal,
): Promise<{ block?: string; notices: HookNotice[] }> {
  const o = await run(ctx, "PreCompact", { trigger, custom_instructions: instructions ?? "" }, trigger, signal);
  return { ...(o.block ? { block: o.block } : {}), notices: noticesOf(o) };
}
