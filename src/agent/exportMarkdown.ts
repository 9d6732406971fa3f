// `rt export ID`: a session's full history as markdown (everything, including
// what compaction took out of the model's context).
import type { SessionRecord } from "./session.js";
import { replay, repairRecords } from "./session.js";

function fence(text: string, lang = ""): string {
  // A fence longer than any run of backticks inside, so the content cannot close it.
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text.replace(/\n$/, "")}\n${f}`;
}

function prettyArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args || "{}"), null, 2);
  } catch {
    return args;
  }
}

function formatUsage(r: { input_tokens: number; output_tokens: number; requests: number }, cost?: number): string {
  const c = cost !== undefined ? `, cost ${cost.toFixed(4)}` : "";
  return `${r.requests} model requests, ${r.input_tokens.toLocaleString("en-US")} input tokens, ${r.output_tokens.toLocaleString("en-US")} output tokens${c}`;
}

export function sessionMarkdown(records: SessionRecord[]): string {
  const all = [...records, ...repairRecords(records)];
  const state = replay(all);
  const h = state.header;
  const out: string[] = [
    `# rt session ${h.id}`,
    "",
    `- Started: ${h.created}`,
    `- Project: ${h.root}`,
    `- Model: ${h.model}${state.model !== h.model ? ` (last: ${state.model})` : ""}`,
    `- Usage: ${formatUsage(state.usage, state.cost)}`,
    "",
  ];
  for (const r of all) {
    if (r.t === "compaction") {
      out.push("---", "", "*The context was compacted here; the model continued from this summary:*", "", r.summary, "", "---", "");
      continue;
    }
    if (r.t === "clear") {
      out.push("---", "", "*The context was cleared here (/clear).*", "", "---", "");
      continue;
    }
    if (r.t === "model") {
      out.push(`*Model: ${r.model}*`, "");
      continue;
    }
    if (r.t === "protocol") {
      out.push(`*Protocol: ${r.protocol}*`, "");
      continue;
    }
    if (r.t === "event" && r.event.type === "error") {
      out.push(`> **Error (${r.event.kind}):** ${r.event.message.split("\n")[0]}`, "");
      continue;
    }
    if (r.t === "event" && r.event.type === "tool_blocked") {
      out.push(`> **Blocked** \`${r.event.name}\`: ${r.event.reason}`, "");
      continue;
    }
    if (r.t !== "message") continue;
    const m = r.message;
    if (m.role === "user") {
      if (r.origin === "tool_output") out.push("**Output**", "", fence(m.content, "text"), "");
      else if (r.origin === "summary") out.push("**Summary**", "", m.content, "");
      else out.push("## User", "", m.content, "");
    } else if (m.role === "assistant") {
      out.push("## Assistant", "");
      if (m.reasoning) out.push("<details><summary>Reasoning</summary>", "", m.reasoning, "", "</details>", "");
      if (m.content) out.push(m.content, "");
      for (const c of m.toolCalls ?? []) out.push(`**Tool call** \`${c.name}\``, "", fence(prettyArgs(c.arguments), "json"), "");
    } else if (m.role === "tool") {
      out.push(`**Result of** \`${m.name}\`${m.isError ? " (failed)" : ""}`, "", fence(m.content, "text"), "");
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}
