// `rt export ID`: a session's full history as markdown (everything, including
// what compaction took out of the model's context).
import type { SessionRecord, SubagentLink } from "./session.js";
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

/** A subagent's run: the task call that started it and its log's records. */
export interface SidechainRecords {
  link: SubagentLink;
  records: SessionRecord[];
}

/** `rt export`: the session, each subagent's run shown (collapsed) after the result of the task call that started it. */
export function sessionMarkdown(records: SessionRecord[], sidechains: readonly SidechainRecords[] = []): string {
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
    ...transcript(all, "##", sidechains),
  ];
  // Runs not shown after a tool result (text mode's calls come back as user messages): at the end.
  const toolIds = new Set(
    all.flatMap((r) => (r.t === "message" && r.message.role === "tool" ? [r.message.toolCallId] : [])),
  );
  for (const sub of sidechains.filter((c) => !toolIds.has(c.link.tool_use_id))) out.push(...subagentDetails(sub, "##"));
  return `${out.join("\n").trimEnd()}\n`;
}

function transcript(all: SessionRecord[], heading: string, sidechains: readonly SidechainRecords[]): string[] {
  const out: string[] = [];
  for (const r of all) {
    if (r.t === "compaction") {
      out.push(
        "---",
        "",
        "*The context was compacted here; the model continued from this summary:*",
        "",
        r.summary,
        "",
        "---",
        "",
      );
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
    if (r.t === "approval") {
      out.push(`*Approval mode: ${r.mode}*`, "");
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
    if (r.t === "event" && r.event.type === "todos") {
      const items = r.event.todos.map(
        (t) =>
          `- [${t.status === "completed" ? "x" : " "}] ${t.status === "in_progress" ? `**${t.content}** (in progress)` : t.content}`,
      );
      out.push("**Todos**", "", ...(items.length ? items : ["*(emptied)*"]), "");
      continue;
    }
    if (r.t !== "message") continue;
    const m = r.message;
    if (m.role === "user") {
      if (r.origin === "tool_output" || r.origin === "user_command")
        out.push("**Output**", "", fence(m.content, "text"), "");
      else if (r.origin === "summary") out.push("**Summary**", "", m.content, "");
      else out.push(`${heading} User`, "", m.content, "");
    } else if (m.role === "assistant") {
      out.push(`${heading} Assistant`, "");
      if (m.reasoning) out.push("<details><summary>Reasoning</summary>", "", m.reasoning, "", "</details>", "");
      if (m.content) out.push(m.content, "");
      for (const c of m.toolCalls ?? [])
        out.push(`**Tool call** \`${c.name}\``, "", fence(prettyArgs(c.arguments), "json"), "");
    } else if (m.role === "tool") {
      out.push(`**Result of** \`${m.name}\`${m.isError ? " (failed)" : ""}`, "", fence(m.content, "text"), "");
      for (const sub of sidechains.filter((c) => c.link.tool_use_id === m.toolCallId))
        out.push(...subagentDetails(sub, heading));
    }
  }
  return out;
}

/** A subagent's run, collapsed, its headings one level below `heading`. */
function subagentDetails(sub: SidechainRecords, heading: string): string[] {
  const subAll = [...sub.records, ...repairRecords(sub.records)];
  const used = replay(subAll);
  return [
    `<details><summary>Subagent ${sub.link.subagent_type}: ${sub.link.description} (${formatUsage(used.usage, used.cost)})</summary>`,
    "",
    ...transcript(subAll, `${heading}#`, []),
    "</details>",
    "",
  ];
}
