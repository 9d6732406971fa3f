// batch (Claude Code's BatchTool): several tool calls in
// one, for models trained to group their calls this way. Each invocation is
// checked, asked about and run exactly as if the model had made it directly
// (toolCalls.runNestedCalls): read-only ones in parallel, the others alone and
// in order. Every result comes back, in the order of the invocations.
import * as z from "zod";
import { defineLoopTool } from "./loopTool.js";
import { ok, fail } from "../../tools/types.js";
import { isLoopTool } from "./loopTool.js";
import { runNestedCalls, type PendingCall } from "../toolCalls.js";
import { describeCall } from "../approval.js";
import { AGENT_BATCH_MAX_INVOCATIONS } from "../../base/limits.js";

export const batchTool = defineLoopTool({
  name: "batch",
  aliases: ["BatchTool"],
  description: `Runs several tool calls in one: invocations is a list of {tool_name, input}, each input being that tool's arguments. Read-only calls run in parallel, others one at a time in the order given; every result is returned, numbered. Calling several tools directly in one answer does the same; use batch when that is how you work.`,
  schema: () =>
    z
      .object({
        invocations: z
          .array(
            z
              .object({
                tool_name: z.string().min(1),
                input: z.record(z.string(), z.unknown()).describe("The tool's arguments."),
              })
              .strict(),
          )
          .min(1, "give at least one invocation")
          .max(AGENT_BATCH_MAX_INVOCATIONS, `at most ${AGENT_BATCH_MAX_INVOCATIONS} invocations in one batch`),
      })
      .strict(),
  alone: true,
  async runInLoop(ctx, args, call) {
    // Tools of the loop itself (a subagent, a question, another batch) are not batched: they are called directly.
    const nested = args.invocations.find((inv) => isLoopTool(ctx.tools.lookup.find(inv.tool_name)));
    if (nested) return fail(`${nested.tool_name} cannot run inside batch: call it directly`);
    const calls: PendingCall[] = args.invocations.map((inv, i) => ({
      id: `${call.id}.${i + 1}`,
      name: inv.tool_name,
      args: inv.input,
      protocol: "tools",
    }));
    const results = await runNestedCalls(ctx, calls, call, call.signal, call.turn);
    const failed = results.filter((r) => !r.success).length;
    const parts = results.map(
      (r, i) => `### ${i + 1}. ${describeCall(calls[i].name, calls[i].args)}${r.success ? "" : " (failed)"}\n${r.text}`,
    );
    const summary = `${results.length} call${results.length === 1 ? "" : "s"}${failed ? `, ${failed} failed` : ""}`;
    return failed === results.length
      ? { ...fail(`every call failed (${summary})`), output: parts.join("\n\n") }
      : ok(`${summary}\n\n${parts.join("\n\n")}`);
  },
});
