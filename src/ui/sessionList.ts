// One line per session, as rt sessions and /sessions in rt chat show them.
import type { SessionSummary } from "../agent/session.js";

function oneLine(s: string, max: number): string {
  const l = s.replace(/\s+/g, " ").trim();
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}

export function formatSessionList(sessions: SessionSummary[], current?: string): string {
  if (sessions.length === 0) return "no sessions yet in this project (rt run or rt chat starts one)\n";
  const rows = sessions.map((s) => {
    const tokens = s.usage.input_tokens + s.usage.output_tokens;
    const cost = s.cost !== undefined ? ` $${s.cost.toFixed(4)}` : "";
    const mark = s.id === current ? "*" : " ";
    return `${mark} ${s.id}  ${s.updated.slice(0, 16).replace("T", " ")}  ${s.model}  ${s.prompts} prompt${s.prompts === 1 ? "" : "s"}, ${tokens.toLocaleString("en-US")} tokens${cost}  ${oneLine(s.firstPrompt, 60)}`;
  });
  return `${rows.join("\n")}\n`;
}
