// Where the agent loop runs hooks (src/extensions/hooks.ts runs them):
// one function per event, each called from one place in turn.ts, toolCalls.ts
// or compaction.ts, so that those files change by a line or two. A session's
// hooks are read from its configuration the first time one is needed.
import type { LoopContext } from "./loopContext.js";
/** A tool call as the loop holds it (toolCalls.ts PendingCall): a PreToolUse hook may replace its arguments. */
interface HookedCall {
  id: string;
  name: string;
  args: unknown;
}
import type { ToolResult } from "../tools/types.js";
import { prepareCall, type Preparation } from "../tools/policy.js";
import { Hooks, parseHooks, type HookEvent, type HookOutcome } from "../extensions/hooks.js";
import { loadConfig } from "../base/config.js";
import { HOOK_STOP_MAX_CONTINUES } from "../base/limits.js";

interface SessionHooks {
  hooks: Hooks;
  started: boolean;
  /** Problems of the configuration, said once. */
  pending: string[];
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
    const { config, problems } = parseHooks(value);
    for (const p of problems) pending.push(`hooks configuration: ${p.where}: ${p.message} (skipped)`);
    s = { hooks: new Hooks(config, problems), started: false, pending };
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
): Promise<HookOutcome> {
  const s = sessionHooks(ctx);
  const empty: HookOutcome = { context: [], notices: s.pending.splice(0), ran: 0 };
  if (!s.hooks.has(event)) return empty;
  const id = ctx.history.log.id;
  // The log's own file: a subagent's is its sidechain, and a session without .rt/ state has none.
  const common = {
    session_id: id,
    transcript_path: ctx.history.log.file ?? "",
    permission_mode: PERMISSION_MODES[ctx.approvals.mode] ?? ctx.approvals.mode,
  };
  const outcome = await s.hooks.run(event, { ...common, ...input }, target, {
    root: ctx.workspace.root,
    env: ctx.workspace.env,
    ...(signal ? { signal } : {}),
  });
  outcome.notices.unshift(...empty.notices);
  return outcome;
}

export interface PreToolUseDecision {
  /** The call is not run: tell the model this. */
  block?: string;
  /** The call with the hook's arguments, checked again by the policy. */
  prepared?: Preparation;
  /** permissionDecision "allow": run without asking. */
  allow?: boolean;
  notices: string[];
}

/** PreToolUse: may block the call, or change its arguments (checked by the policy again, so a hook cannot pass what the tool refuses). */
export async function preToolUseHook(
  ctx: LoopContext,
  call: HookedCall,
  args: unknown,
  signal?: AbortSignal,
): Promise<PreToolUseDecision> {
  const o = await run(
    ctx,
    "PreToolUse",
    { tool_name: call.name, tool_input: args, tool_use_id: call.id },
    call.name,
    signal,
  );
  if (o.block) return { block: o.block, notices: o.notices };
  const preApproved = turnAllowed.get(ctx)?.has(call.name) === true;
  const out: PreToolUseDecision = { notices: o.notices, ...(o.allow || preApproved ? { allow: true } : {}) };
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
): Promise<{ note?: string; notices: string[] }> {
  const o = await run(
    ctx,
    "PostToolUse",
    { tool_name: call.name, tool_input: args, tool_use_id: call.id, tool_response: result },
    call.name,
    signal,
  );
  const parts = [...(o.block ? [`[hook] ${o.block}`] : []), ...o.context.map((c) => `[hook] ${c}`)];
  return { ...(parts.length ? { note: parts.join("\n") } : {}), notices: o.notices };
}

/** SessionStart (once per session, before its first prompt) and UserPromptSubmit: may block the prompt; their context goes with it. */
export async function userPromptHooks(
  ctx: LoopContext,
  prompt: string,
  signal?: AbortSignal,
): Promise<{ block?: string; prompt: string; stop?: string; notices: string[] }> {
  const s = sessionHooks(ctx);
  const notices: string[] = [];
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
    notices.push(...start.notices);
    context.push(...start.context);
  }
  const o = await run(ctx, "UserPromptSubmit", { prompt }, undefined, signal);
  notices.push(...o.notices);
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

/** Stop: a hook that blocks sends the model back to work with its reason (at most HOOK_STOP_MAX_CONTINUES times a turn). */
export async function stopHook(
  ctx: LoopContext,
  continues: number,
  lastText: string,
  signal?: AbortSignal,
): Promise<{ continueWith?: string; notices: string[] }> {
  const o = await run(
    ctx,
    "Stop",
    { stop_hook_active: continues > 0, last_assistant_message: lastText },
    undefined,
    signal,
  );
  if (o.block && continues < HOOK_STOP_MAX_CONTINUES) return { continueWith: o.block, notices: o.notices };
  if (o.block)
    o.notices.push(`a Stop hook blocked again after ${HOOK_STOP_MAX_CONTINUES} continuations; the turn ends`);
  return { notices: o.notices };
}

/** PreCompact: may block a compaction (exit 2 or decision "block"). */
export async function preCompactHook(
  ctx: LoopContext,
  trigger: "auto" | "manual",
  instructions: string | undefined,
  signal?: AbortSignal,
): Promise<{ block?: string; notices: string[] }> {
  const o = await run(ctx, "PreCompact", { trigger, custom_instructions: instructions ?? "" }, trigger, signal);
  return { ...(o.block ? { block: o.block } : {}), notices: o.notices };
}
