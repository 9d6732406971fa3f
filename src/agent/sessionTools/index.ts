// The agent loop's own tools, and which of them a loop offers.
import type { Tool } from "../../tools/types.js";
import type { ApprovalMode } from "../approval.js";
import { taskTool } from "./task.js";
import { todoWriteTool } from "./todoWrite.js";
import { askUserTool } from "./askUser.js";
import { batchTool } from "./batch.js";
import { exitPlanModeTool } from "./exitPlanMode.js";

// Erased to Tool like the registry's entries: each tool's own argument type is checked by its schema.
export const LOOP_TOOLS = [
  taskTool,
  todoWriteTool,
  askUserTool,
  batchTool,
  exitPlanModeTool,
] as unknown as readonly Tool[];

/**
 * The loop tools of the main agent: task while subagents may be started
 * (agent.subagent_depth above 0), exit_plan_mode in plan mode only.
 */
export function mainLoopTools(subagentDepth: number): {
  all: readonly Tool[];
  offer: (mode: ApprovalMode) => readonly Tool[];
} {
  return {
    all: LOOP_TOOLS,
    offer: (mode) =>
      LOOP_TOOLS.filter(
        (t) => (t.name !== taskTool.name || subagentDepth > 0) && (t.name !== exitPlanModeTool.name || mode === "plan"),
      ),
  };
}
