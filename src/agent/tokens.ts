// Token estimates for deciding when to compact. Providers report exact input
// counts after each request; between requests (and for providers that report
// nothing) about four characters per token is close enough for a threshold.
import type { ChatMessage, ToolSpec } from "./providers/types.js";
import { IMAGE_PIXELS_PER_TOKEN } from "../base/limits.js";

export const CHARS_PER_TOKEN = 4;
/** Role markers and separators each message costs beyond its text. */
const PER_MESSAGE_TOKENS = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(m: ChatMessage): number {
  let chars = m.content.length;
  if (m.role === "assistant") {
    chars += m.reasoning?.length ?? 0;
    for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
  }
  // An image costs by its pixels, not by the length of its base64.
  let images = 0;
  if (m.role === "tool" || m.role === "user")
    for (const img of m.images ?? []) images += Math.ceil((img.width * img.height) / IMAGE_PIXELS_PER_TOKEN);
  return Math.ceil(chars / CHARS_PER_TOKEN) + images + PER_MESSAGE_TOKENS;
}

export function estimateTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[] = []): number {
  let n = 0;
  for (const m of messages) n += estimateMessageTokens(m);
  for (const t of tools) n += estimateTextTokens(t.name + t.description + JSON.stringify(t.parameters));
  return n;
}
