// `rt mcp --agent`: one more tool, `rt_agent`, that runs rt's whole agent on a
// prompt and returns its answer and session id, so that another agent (Claude
// Code, Codex, any MCP client) can delegate a task to rt, as Codex offers with
// `codex mcp-server`. Progress notifications carry what the agent is doing.
// Nobody can be asked for approval here: calls that would ask are refused and
// the model is told, so the approval mode chosen decides what the agent may do.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Workspace } from "../../workspace/workspace.js";
import { APPROVAL_MODES, describeCall, type ApprovalMode } from "../../agent/approval.js";
import type { AgentStreamEvent } from "../../agent/events.js";
import type { Flags } from "../../ui/agentSetup.js";

export const AGENT_TOOL_NAME = "rt_agent";

/** The default when a call names no approval mode and the configuration none: edits (journaled, undoable) run; commands are refused. */
const DEFAULT_APPROVAL: ApprovalMode = "auto-edit";

export const agentToolEntry = {
  name: AGENT_TOOL_NAME,
  description:
    "Delegates a coding task to rt's own agent, which works in this workspace with rt's tools (search, read, line-addressed edits, shell) and returns its final answer and a session_id. " +
    "Pass session_id to continue that conversation. approval decides what it may do without asking (nobody can be asked here): " +
    "auto-edit (default) applies edits and refuses shell commands, auto allows everything, plan and never change nothing.",
  inputSchema: {
    type: "object" as const,
    properties: {
      prompt: { type: "string", minLength: 1, description: "The task or question, as you would tell a colleague." },
      approval: {
        type: "string",
        enum: [...APPROVAL_MODES],
        description: "What the agent may do without asking (default auto-edit, or the configured agent.approval).",
      },
      session_id: {
        type: "string",
        description: "A session_id an earlier rt_agent call returned: continue that conversation.",
      },
      model: { type: "string", description: "provider/model for this call (default: rt's configured model)." },
    },
    required: ["prompt"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object" as const,
    properties: {
      result: { type: "string" },
      session_id: { type: "string" },
      is_error: { type: "boolean" },
      finish_reason: { type: "string" },
    },
    required: ["result", "session_id", "is_error"],
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

/** Checks the arguments; returns them or the error to show. */
export function agentToolArgs(
  args: Record<string, unknown>,
): { prompt: string; approval?: ApprovalMode; sessionId?: string; model?: string } | { error: string } {
  const known = new Set(Object.keys(agentToolEntry.inputSchema.properties));
  const unknown = Object.keys(args).filter((k) => !known.has(k));
  if (unknown.length)
    return { error: `unknown argument ${unknown.join(", ")}; rt_agent takes ${[...known].join(", ")}` };
  if (typeof args.prompt !== "string" || args.prompt.trim() === "")
    return { error: "prompt must be a non-empty string: the task for rt's agent" };
  if (args.approval !== undefined && !APPROVAL_MODES.includes(args.approval as ApprovalMode)) {
    return { error: `approval must be one of ${APPROVAL_MODES.join(", ")}, not ${JSON.stringify(args.approval)}` };
  }
  for (const k of ["session_id", "model"] as const)
    if (args[k] !== undefined && typeof args[k] !== "string") return { error: `${k} must be a string` };
  return {
    prompt: args.prompt,
    ...(args.approval ? { approval: args.approval as ApprovalMode } : {}),
    ...(typeof args.session_id === "string" ? { sessionId: args.session_id } : {}),
    ...(typeof args.model === "string" ? { model: args.model } : {}),
  };
}

/** One line of progress for an event, or undefined for events not worth a notification. */
export function progressLine(ev: AgentStreamEvent): string | undefined {
  const who = ev.parent_tool_use_id !== undefined ? "subagent: " : "";
  if (ev.type === "tool_start") return `${who}${describeCall(ev.name, ev.args)}`;
  if (ev.type === "tool_end" && !ev.success)
    return `${who}${ev.name} failed: ${(ev.error ?? ev.output).split("\n")[0].slice(0, 200)}`;
  if (ev.type === "compact_start") return "compacting the conversation";
  if (ev.type === "notice") return ev.message;
  return undefined;
}

/** Runs the agent for one rt_agent call. */
export async function runAgentTool(
  ws: Workspace,
  rawArgs: Record<string, unknown>,
  flags: Flags,
  opts: { signal: AbortSignal; progress?: (message: string) => void },
): Promise<CallToolResult> {
  const args = agentToolArgs(rawArgs);
  if ("error" in args) return { isError: true, content: [{ type: "text", text: `rt_agent: ${args.error}` }] };
  const { setupAgent, SetupError } = await import("../../ui/agentSetup.js");
  const { loadAgentSettings } = await import("../../agent/settings.js");
  let approval: ApprovalMode = args.approval ?? DEFAULT_APPROVAL;
  if (!args.approval) {
    try {
      approval = loadAgentSettings(ws).approval ?? DEFAULT_APPROVAL;
    } catch {
      /* setupAgent reports the configuration error below */
    }
  }
  let setup;
  try {
    setup = await setupAgent(
      ws,
      {
        ...flags,
        approval,
        ...(args.model ? { model: args.model } : {}),
        ...(args.sessionId ? { resume: args.sessionId } : {}),
      },
      {},
    );
  } catch (e) {
    if (e instanceof SetupError) return { isError: true, content: [{ type: "text", text: `rt_agent: ${e.message}` }] };
    throw e;
  }
  const { agent } = setup;
  let last: AgentStreamEvent | undefined;
  try {
    for await (const ev of agent.run(args.prompt, { signal: opts.signal })) {
      const e = ev as AgentStreamEvent;
      if (e.parent_tool_use_id === undefined) last = e;
      const line = progressLine(e);
      if (line) opts.progress?.(line);
    }
  } finally {
    agent.close();
  }
  const done = last?.type === "turn_complete";
  let result = "the agent ended without a result";
  if (last?.type === "turn_complete") result = last.text;
  else if (last?.type === "error")
    result = last.text ? `${last.text}\n\n[${last.kind}] ${last.message}` : `[${last.kind}] ${last.message}`;
  const structured = {
    result,
    session_id: agent.sessionId,
    is_error: !done,
    ...(last && (last.type === "turn_complete" || last.type === "error") && last.finish_reason
      ? { finish_reason: last.finish_reason }
      : {}),
  };
  return {
    ...(done ? {} : { isError: true }),
    content: [{ type: "text", text: `${structured.result}\n\nsession_id: ${agent.sessionId}` }],
    structuredContent: structured,
  };
}
