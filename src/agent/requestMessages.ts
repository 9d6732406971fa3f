// The messages of a model request, built from the context. The context keeps
// messages as they happened (native tool calls, or text-mode outputs as user
// messages); a request in text mode shows earlier native calls as the JSON
// actions text mode uses, so a session can switch protocol at any time
// (auto's fallback, /model to a model without tools, --resume with another).
import type { ChatMessage } from "./providers/types.js";
import type { Protocol } from "./events.js";
import type { ContextEntry } from "./session.js";

function actionBlock(name: string, args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args || "{}");
  } catch {
    parsed = undefined;
  }
  const body =
    parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? JSON.stringify({ action: name, ...(parsed as object) })
      : JSON.stringify({ action: name, arguments: args });
  return `\`\`\`json\n${body}\n\`\`\``;
}

function asText(m: ChatMessage): ChatMessage {
  if (m.role === "assistant" && m.toolCalls?.length) {
    const blocks = m.toolCalls.map((c) => actionBlock(c.name, c.arguments));
    const { toolCalls: _drop, ...rest } = m;
    return { ...rest, content: [m.content, ...blocks].filter(Boolean).join("\n\n") };
  }
  if (m.role === "tool")
    return {
      role: "user",
      content: `[rt] Output of ${m.name}${m.isError ? " (failed)" : ""}:\n${m.content}`,
      ...(m.images?.length ? { images: m.images } : {}),
    };
  return m;
}

/**
 * System prompt + context, adapted to the protocol: consecutive user messages
 * are joined (text-mode outputs, a summary followed by a prompt, a prompt
 * after an interrupted turn), and empty assistant messages dropped, since
 * some APIs require roles to alternate and reject empty content.
 */
export function requestMessages(system: string, context: readonly ContextEntry[], protocol: Protocol): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: system }];
  for (const e of context) {
    const m = protocol === "text" ? asText(e.message) : e.message;
    // (A paused answer stays, empty or not: its blocks are what the model continues from.)
    const paused = m.role === "assistant" && m.finishRaw === "pause_turn";
    if (m.role === "assistant" && m.content.trim() === "" && !m.toolCalls?.length && !paused) continue;
    const last = out[out.length - 1];
    if (m.role === "user" && last.role === "user") {
      const images = [...(last.images ?? []), ...(m.images ?? [])];
      out[out.length - 1] = {
        role: "user",
        content: `${last.content}\n\n${m.content}`,
        ...(images.length ? { images } : {}),
      };
      continue;
    }
    out.push(m);
  }
  return out;
}
