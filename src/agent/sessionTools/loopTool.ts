// Tools that act on the agent loop itself rather than on the workspace: task
// (a subagent), todo_write, ask_user, batch and exit_plan_mode. They are Tools
// like any other (a name, aliases, a zod schema the policy validates, approval
// categories), offered only to rt's own agent: the registry the CLI, `rt call`
// and MCP faces list does not hold them, and their handler outside a loop says
// so. Inside a loop, toolCalls.ts runs them through runInLoop, which receives
// the LoopContext and the call.
import type { z } from "zod";
import type { AgentEvent, AgentStreamEvent } from "../events.js";
import type { LoopContext, TurnState } from "../loopContext.js";
import { defineTool, fail, type Tool, type ToolResult, type ToolSpec } from "../../tools/types.js";

/** The call a loop tool runs for. */
export interface LoopCall {
  id: string;
  turn: TurnState;
  signal?: AbortSignal;
  /** An event of this loop: written to its log and handed to whoever iterates the loop. */
  emit(ev: AgentEvent): void;
  /** A subagent's event: handed on (tagged with parent_tool_use_id) but not logged here; the subagent's own log has it. */
  forward(ev: AgentStreamEvent): void;
}

/** A loop tool's result; `answer` ends the user turn with that text as the final answer (exit_plan_mode in `rt run`). */
export type LoopToolResult = ToolResult & { answer?: string };

export interface LoopTool<S extends z.ZodType = z.ZodType> extends Tool<S> {
  runInLoop(ctx: LoopContext, args: z.infer<S>, call: LoopCall): Promise<LoopToolResult>;
  /** Runs alone, never in a parallel batch with other calls (it asks the user, or changes the loop's state). */
  alone: boolean;
}

export function isLoopTool(tool: Tool | undefined): tool is LoopTool {
  return typeof (tool as Partial<LoopTool> | undefined)?.runInLoop === "function";
}

type LoopToolSpec<S extends z.ZodType> = Omit<ToolSpec<S>, "handler" | "readOnly"> & {
  runInLoop(ctx: LoopContext, args: z.infer<S>, call: LoopCall): Promise<LoopToolResult>;
  alone: boolean;
};

/**
 * A loop tool. Read-only for the approvals and the profiles: it changes no file
 * itself, and whatever a subagent or a batch runs is checked and approved call
 * by call.
 */
export function defineLoopTool<S extends z.ZodType>(spec: LoopToolSpec<S>): LoopTool<S> {
  const { runInLoop, alone, ...rest } = spec;
  const tool = defineTool<S>({
    ...rest,
    readOnly: true,
    handler: async () =>
      fail(
        `${spec.name} works only inside rt's agent (rt run, rt chat): it acts on the agent's conversation, not on the workspace`,
      ),
  });
  return Object.assign(tool, { runInLoop, alone });
}
