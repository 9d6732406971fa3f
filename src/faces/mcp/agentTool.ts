// `rt mcp --agent`: one more tool, `rt_agent`, that runs rt's whole agent on a
// prompt and returns its answer and session id, so that another agent (Claude
// Code, Codex, any MCP client) can delegate a task to rt, as Codex offers with
// `codex mcp-server`. Progress notifications carry what the agent is doing.
// Nobody can be asked for approval here: calls that would ask are refused and
// the model is told, so the approval mode chosen decides what the agent may do.
import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Workspace } from "../../workspace/workspace.js";
import { APPROVAL_MODES, describeCall, type ApprovalMode } from "../../agent/approval.js";
import type { AgentStreamEvent } from "../../agent/events.js";
import type { Flags } from "../../ui/agentSetup.js";
import { describeIssues } from "../../tools/policy.js";

export const AGENT_TOOL_NAME = "rt_agent";

/** The default when a call names no approval mode and the configuration none: edits (journaled, undoable) run; commands are refused. */
const DEFAULT_APPROVAL: ApprovalMode = "auto-edit";

const PROMPT_ERROR = "must be a non-empty string: the task for rt's agent";

/** rt_agent's arguments: the one definition its check and the schema it lists are both made from. */
const agentToolArgsSchema = z.strictObject(
  {
    prompt: z
      .string({ error: PROMPT_ERROR })
      .min(1, { error: PROMPT_ERROR, abort: true })
      .refine((p) => p.trim() !== "", PROMPT_ERROR)
      .describe("The task or question, as you would tell a colleague."),
    approval: z
      .enum(APPROVAL_MODES, {
        error: (i) => `must be one of ${APPROVAL_MODES.join(", ")}, not ${JSON.stringify(i.input)}`,
      })
      .optional()
      .describe("What the agent may do without asking (default auto-edit, or the configured agent.approval)."),
    session_id: z
      .string({ error: "must be a string" })
      .optional()
      .describe("A session_id an earlier rt_agent call returned: continue that conversation."),
    model: z
      .string({ error: "must be a string" })
      .optional()
      .describe("provider/model for this call (default: rt's configured model)."),
  },
  {
    error: (i) =>
      i.code === "unrecognized_keys"
        ? `unknown argument ${i.keys.join(", ")}; rt_agent takes prompt, approval, session_id, model`
        : undefined,
  },
);

const inputSchema = z.toJSONSchema(agentToolArgsSchema, { io: "input" }) as Record<string, unknown>;
delete inputSchema.$schema;

export const agentToolEntry = {
  name: AGENT_TOOL_NAME,
  description:
    "Delegates a coding task to rt's own agent, which works in this workspace with rt's tools (search, read, line-addressed edits, shell) and returns its final answer and a session_id. " +
    "Pass session_id to continue that conversation. approval decides what it may do without asking (nobody can be asked here): " +
    "auto-edit (default) applies edits and refuses shell commands, auto allows everything, plan and never change nothing.",
  inputSchema: inputSchema as { type: "object"; [key: string]: unknown },
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

/** Checks the arguments against the schema; returns them or the error to show (each problem, named). */
export function agentToolArgs(
  args: Record<string, unknown>,
): { prompt: string; approval?: ApprovalMode; sessionId?: string; model?: string } | { error: string } {
  const parsed = agentToolArgsSchema.safeParse(args, { jitless: true });
  if (!parsed.success) return { error: describeIssues(parsed.error) };
  const { prompt, approval, session_id, model } = parsed.data;
  return {
    prompt,
    ...(approval ? { approval } : {}),
    ...(session_id !== undefined ? { sessionId: session_id } : {}),
    ...(model !== undefined ? { model } : {}),
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
