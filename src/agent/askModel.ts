// ToolContext.askModel for the agent's tools: one question to a model, no
// tools, not streamed to the face. web_fetch applies its prompt to a page with
// it. The model is agent.small_model when configured (a fast, cheap one), else
// the session's; what it uses counts in the session's totals like any request.
import type { ModelQuestion } from "../tools/types.js";
import { ToolError } from "../base/errors.js";
import type { FinishReason, Usage } from "./providers/types.js";
import { usageOf } from "./cost.js";
import { countUsage, type LoopContext } from "./loopContext.js";

export function modelAsker(ctx: LoopContext): (q: ModelQuestion) => Promise<string> {
  return async (q) => {
    const m = ctx.smallModel ?? ctx.model;
    let text = "";
    let usage: Usage | undefined;
    let finish: FinishReason | undefined;
    try {
      const messages = [
        { role: "system" as const, content: q.system },
        { role: "user" as const, content: q.prompt },
      ];
      for await (const part of m.provider.stream({
        model: m.model,
        messages,
        ...(q.signal ? { signal: q.signal } : {}),
      })) {
        if (part.type === "text") text += part.delta;
        else if (part.type === "usage") usage = part.usage;
        else if (part.type === "finish") finish = part.reason;
      }
    } catch (e) {
      countUsage(ctx, undefined, usageOf(usage));
      throw new ToolError(
        `the model (${m.label}) could not answer about the page: ${(e as Error).message}; try again, or with raw: true for the page itself`,
      );
    }
    countUsage(ctx, undefined, usageOf(usage));
    if (text.trim() === "")
      throw new ToolError(
        `the model (${m.label}) gave no answer about the page${finish && finish !== "stop" ? ` (${finish})` : ""}; try again, or with raw: true`,
      );
    return finish === "length" ? `${text.trim()}\n[cut at the model's output limit]` : text;
  };
}
