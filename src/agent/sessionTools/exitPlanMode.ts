// exit_plan_mode (Claude Code's ExitPlanMode): in plan mode the model presents
// its finished plan. In `rt chat` the user reviews it: accepted, the session
// leaves plan mode for the approval mode the user picks and the model carries
// the plan out; rejected, the feedback goes back to the model, still in plan
// mode. Without a face that can ask (`rt run`), the plan is the answer: the
// turn ends with it.
import * as z from "zod";
import { defineLoopTool } from "./loopTool.js";
import { ok, fail } from "../../tools/types.js";
import { setApprovalMode } from "../loopContext.js";

export const exitPlanModeTool = defineLoopTool({
  name: "exit_plan_mode",
  aliases: ["ExitPlanMode"],
  description: `In plan mode, presents your finished plan to the user for approval. Call it once you have investigated enough to know exactly what to change: plan is the step-by-step plan in Markdown (files and functions to change, what changes, how to verify). If the user accepts, you leave plan mode and carry it out; if not, you get their feedback. Only for planning the implementation of code changes, not for research questions.`,
  schema: () =>
    z
      .object({
        plan: z.string().trim().min(1, "plan must hold the plan").max(100_000).describe("The plan, in Markdown."),
      })
      .strict(),
  alone: true,
  async runInLoop(ctx, args, call) {
    if (ctx.approvals.mode !== "plan")
      return fail("not in plan mode: there is no plan to approve; carry on with the task");
    const review = ctx.depth === 0 ? ctx.interaction.reviewPlan : undefined;
    if (!review) {
      return {
        ...ok("The plan was given to the user as the answer of this turn; stop here until the user replies."),
        answer: args.plan,
      };
    }
    const decision = await review(args.plan);
    if (call.signal?.aborted) return fail("interrupted by the user before the plan was reviewed");
    if (!decision.accept) {
      const feedback = decision.feedback.trim();
      return {
        ...fail("the user did not accept the plan"),
        output: `The user rejected the plan${feedback ? ` and said: ${feedback}` : " without saying why"}.\nYou are still in plan mode: revise the plan (investigate more if needed) and present it again with exit_plan_mode, or ask the user.`,
      };
    }
    const mode = decision.approval === "plan" ? "ask" : decision.approval;
    setApprovalMode(ctx, mode);
    call.emit({ type: "notice", message: `plan accepted; approval mode: ${mode}` });
    return ok(
      `The user accepted the plan. You have left plan mode (approval mode: ${mode}): carry out the plan now, step by step${ctx.tools.offered.some((t) => t.name === "todo_write") ? ", tracking the steps with todo_write" : ""}.`,
    );
  },
});
