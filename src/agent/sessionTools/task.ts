// task (Claude Code's Task, formerly dispatch_agent): runs a subagent. The
// subagent is the same agent loop (turn.ts) on a LoopContext of its own: an
// empty history logged to its own file next to the parent's session, its
// definition's system prompt, tools and model, the parent's limits, approvals
// (each question saying which subagent asks) and Ctrl-C. The parent's model
// gets only the subagent's final answer; the subagent's events go to the
// parent's stream tagged with parent_tool_use_id (stream-json, the faces), and
// its usage is added to the parent's totals.
//
// Up to AGENT_MAX_CONCURRENT_SUBAGENTS run at once (the task calls of one
// answer run in parallel: toolCalls.batches); their edits meet in the
// workspace's per-file locks like any concurrent calls. A subagent cannot
// start subagents unless agent.subagent_depth allows it.
import { defaultMaxListeners, setMaxListeners } from "node:events";
import * as z from "zod";
import { defineLoopTool, isLoopTool, type LoopCall } from "./loopTool.js";
import { ok, fail, type Tool } from "../../tools/types.js";
import { offering } from "../../tools/policy.js";
import { loadAgentDefinitions, findAgent, type AgentDefinition } from "../../extensions/agentDefinitions.js";
import { countSubagentUsage, createLoopContext, type LoopContext, type ModelBinding } from "../loopContext.js";
import { History } from "../history.js";
import { SessionLog } from "../session.js";
import { restrictedToolSet } from "../toolSet.js";
import { runUserTurn } from "../turn.js";
import { withProfile } from "../rtOnPath.js";
import { subagentSystemPrompt } from "../prompts.js";
import { offeredIn } from "../approval.js";
import type { AgentEvent, Protocol, UsageTotals } from "../events.js";
import type { Workspace } from "../../workspace/workspace.js";
import { AGENT_MAX_CONCURRENT_SUBAGENTS } from "../../base/limits.js";

/** Loop tools a subagent never has: plan approval is the main agent's business. */
const MAIN_AGENT_ONLY = new Set(["exit_plan_mode"]);

export const taskTool = defineLoopTool({
  name: "task",
  aliases: ["Task", "dispatch_agent"],
  description: `Runs a subagent: a separate agent with a fresh context that does one job on its own and returns only its final report (the intermediate work never enters your context). subagent_type picks it: "Explore" (fast, read-only search: where is X, how does Y work), "Plan" (read-only: a step-by-step implementation plan), "general-purpose" (any self-contained job, with your tools), or a custom agent the project or user defined. The prompt must hold everything the subagent needs (it cannot see this conversation) and say what to report. Several task calls in one answer run in parallel. description: 3-5 words shown to the user.`,
  schema: () =>
    z
      .object({
        description: z
          .string()
          .trim()
          .min(1)
          .max(120)
          .describe("A short (3-5 word) description of the job, shown to the user."),
        prompt: z
          .string()
          .trim()
          .min(1)
          .max(100_000)
          .describe("The whole job for the subagent, with the context it needs and what to report back."),
        subagent_type: z
          .string()
          .trim()
          .min(1)
          .max(64)
          .describe('"Explore", "Plan", "general-purpose", or a custom agent\'s name.'),
      })
      .strict(),
  alone: false,
  async runInLoop(ctx, args, call) {
    if (ctx.depth >= ctx.subagentDepth) {
      return fail(
        `a subagent cannot start another subagent here (agent.subagent_depth is ${ctx.subagentDepth}): do the work yourself with your tools`,
      );
    }
    const load = await loadAgentDefinitions(ctx.baseWorkspace);
    const def = findAgent(load.agents, args.subagent_type);
    if (!def) {
      const untrusted = load.untrustedProjectDirs.length
        ? ` (the project's agents in ${load.untrustedProjectDirs.join(", ")} are not read: the folder is not trusted)`
        : "";
      return fail(
        `no subagent type "${args.subagent_type}"; available: ${load.agents.map((a) => a.name).join(", ")}${untrusted}`,
      );
    }
    let model: ModelBinding = ctx.model;
    if (def.model) {
      if (!ctx.resolveModel)
        return fail(
          `subagent ${def.name} asks for model ${def.model}, and this session cannot switch models; set its model to inherit`,
        );
      try {
        model = await ctx.resolveModel(def.model);
      } catch (e) {
        return fail(`subagent ${def.name}: model ${def.model} (${def.file ?? "built-in"}): ${(e as Error).message}`);
      }
    }
    // The subagent runs under a signal of its own, aborted with the turn's: whatever it listens with
    // (its requests, its tools) listens there, and the turn's signal holds one listener per task call.
    const own = childSignal(call.signal);
    try {
      const release = await subagentPlace(ctx, own.signal);
      if (!release) return fail("interrupted by the user before the subagent started");
      try {
        return await runSubagent(ctx, def, model, args, { ...call, ...(own.signal ? { signal: own.signal } : {}) });
      } finally {
        release();
      }
    } finally {
      own.done();
    }
  },
});

/** Task calls in flight per turn signal: its listener limit is raised by that many while they run. */
const inFlight = new WeakMap<AbortSignal, number>();

/**
 * A signal aborted when `parent` is, for one task call. The parent's limit of
 * listeners (ten by default: an answer with more task calls would print
 * MaxListenersExceededWarning) grows with the task calls holding one, and
 * shrinks back when they end. done() detaches it.
 */
function childSignal(parent: AbortSignal | undefined): { signal?: AbortSignal; done: () => void } {
  if (!parent) return { done: () => undefined };
  const child = new AbortController();
  const relay = () => child.abort(parent.reason);
  if (parent.aborted) child.abort(parent.reason);
  const count = (inFlight.get(parent) ?? 0) + 1;
  inFlight.set(parent, count);
  setMaxListeners(Math.max(defaultMaxListeners, count + defaultMaxListeners), parent);
  parent.addEventListener("abort", relay, { once: true });
  return {
    signal: child.signal,
    done: () => {
      parent.removeEventListener("abort", relay);
      const left = (inFlight.get(parent) ?? 1) - 1;
      inFlight.set(parent, left);
      setMaxListeners(left + defaultMaxListeners, parent);
    },
  };
}

/** Waits for one of the AGENT_MAX_CONCURRENT_SUBAGENTS places of this loop; undefined when interrupted first. */
const places = new WeakMap<LoopContext, { running: number; waiting: Array<() => void> }>();
async function subagentPlace(ctx: LoopContext, signal: AbortSignal | undefined): Promise<(() => void) | undefined> {
  let p = places.get(ctx);
  if (!p) places.set(ctx, (p = { running: 0, waiting: [] }));
  const slots = p;
  while (slots.running >= AGENT_MAX_CONCURRENT_SUBAGENTS) {
    if (signal?.aborted) return undefined;
    await new Promise<void>((resolve) => {
      slots.waiting.push(resolve);
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  }
  if (signal?.aborted) return undefined;
  slots.running++;
  return () => {
    slots.running--;
    slots.waiting.shift()?.();
  };
}

/** The subagent's tools: its definition's (or the parent's), as the parent finds them, offered where they can run. */
function subagentTools(ctx: LoopContext, def: AgentDefinition, ws: Workspace): { tools: Tool[]; unknown: string[] } {
  const mayNest = ctx.depth + 1 < ctx.subagentDepth;
  const usable = (t: Tool) =>
    !MAIN_AGENT_ONLY.has(t.name) &&
    (mayNest || t.name !== "task") &&
    offeredIn(ctx.approvals.mode, t) &&
    (isLoopTool(t) || offering(ws, t) === "full");
  if (!def.tools) return { tools: ctx.tools.offered.filter(usable), unknown: [] };
  const tools: Tool[] = [];
  const unknown: string[] = [];
  for (const name of def.tools) {
    const t = ctx.tools.lookup.find(name);
    if (!t) unknown.push(name);
    else if (usable(t) && !tools.includes(t)) tools.push(t);
  }
  return { tools, unknown };
}

async function runSubagent(
  ctx: LoopContext,
  def: AgentDefinition,
  model: ModelBinding,
  args: { description: string; prompt: string },
  call: LoopCall,
) {
  // Explore and Plan read only: their workspace is safe-read-only, their shell in the read-only sandbox.
  const ws = def.readOnly ? withProfile(ctx.workspace, "safe-read-only") : ctx.workspace;
  const { tools, unknown } = subagentTools(ctx, def, ws);
  const session = SessionLog.createSidechain(
    ctx.baseWorkspace,
    ctx.history.log,
    { tool_use_id: call.id, subagent_type: def.name, description: args.description },
    model.label,
    ctx.protocolChoice,
  );
  const prompts = new Map<Protocol, string>();
  const names = tools.map((t) => t.name);
  const sub = createLoopContext({
    workspace: ws,
    model,
    ...(ctx.smallModel ? { smallModel: ctx.smallModel } : {}),
    tools: restrictedToolSet(tools),
    approvals: ctx.approvals.forAgent(`${def.name}: ${args.description}`),
    protocol: ctx.protocolChoice,
    startProtocol: ctx.protocol,
    history: new History(session.log),
    limits: ctx.limits,
    systemPrompt: (protocol) => {
      let p = prompts.get(protocol);
      if (!p)
        prompts.set(
          protocol,
          (p = subagentSystemPrompt(def.prompt, {
            root: ws.root,
            protocol,
            profile: ws.profile,
            plan: false,
            toolNames: names,
          })),
        );
      return p;
    },
    depth: ctx.depth + 1,
    subagentDepth: ctx.subagentDepth,
    interaction: ctx.interaction,
    asker: { subagent_type: def.name, description: args.description },
    ...(ctx.resolveModel ? { resolveModel: ctx.resolveModel } : {}),
    sandboxedShell: def.readOnly,
  });
  call.emit({
    type: "subagent_start",
    parent_tool_use_id: call.id,
    subagent_type: def.name,
    description: args.description,
    model: model.label,
  });
  let end: AgentEvent | undefined;
  try {
    for await (const ev of runUserTurn(sub, args.prompt, call.signal ? { signal: call.signal } : {})) {
      if (ev.type === "turn_complete" || ev.type === "error") end = ev;
      call.forward({ ...ev, parent_tool_use_id: call.id });
    }
  } finally {
    session.log.close();
  }
  const usage: UsageTotals = sub.totals.usage;
  countSubagentUsage(ctx, call.turn, usage, sub.totals.cost, model.label, call.id);
  const success = end?.type === "turn_complete";
  call.emit({
    type: "subagent_end",
    parent_tool_use_id: call.id,
    subagent_type: def.name,
    success,
    usage,
    ...(sub.totals.cost !== undefined ? { cost: sub.totals.cost } : {}),
  });
  const used = `[subagent ${def.name}: ${usage.requests} model request${usage.requests === 1 ? "" : "s"}, ${usage.input_tokens.toLocaleString("en-US")} input and ${usage.output_tokens.toLocaleString("en-US")} output tokens${unknown.length ? `; tools it names that do not exist here: ${unknown.join(", ")}` : ""}]`;
  if (end?.type === "turn_complete")
    return ok(`${end.text.trim() || "(the subagent ended without a report)"}\n\n${used}`);
  const why = end?.type === "error" ? `${end.kind}: ${end.message.split("\n")[0]}` : "it ended without a result";
  const partial = end?.type === "error" && end.text ? `\nIts partial answer:\n${end.text}` : "";
  return { ...fail(`the subagent did not finish (${why})`), output: `${partial.trim()}\n\n${used}`.trim() };
}
