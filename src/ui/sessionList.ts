// One line per session, as rt sessions and /sessions in rt chat show them.
import type { SessionSummary } from "../agent/session.js";
import type { UsageTotals } from "../agent/events.js";

function oneLine(s: string, max: number): string {
  const l = s.replace(/\s+/g, " ").trim();
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}

/** How much of the input came from (and went into) the prompt cache: " (9.1k cached, 1.2k written)", or nothing. */
export function cacheNote(u: UsageTotals, n: (x: number) => string): string {
  const parts = [
    u.cached_input_tokens ? `${n(u.cached_input_tokens)} cached` : "",
    u.cache_write_tokens ? `${n(u.cache_write_tokens)} written` : "",
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

export function formatSessionList(sessions: SessionSummary[], current?: string): string {
  if (sessions.length === 0) return "no sessions yet in this project (rt run or rt chat starts one)\n";
  const rows = sessions.map((s) => {
    const tokens = s.usage.input_tokens + s.usage.output_tokens;
    const cost = s.cost !== undefined ? ` $${s.cost.toFixed(4)}` : "";
    const mark = s.id === current ? "*" : " ";
    return `${mark} ${s.id}  ${s.updated.slice(0, 16).replace("T", " ")}  ${s.model}  ${s.prompts} prompt${s.prompts === 1 ? "" : "s"}, ${tokens.toLocaleString("en-US")} tokens${cacheNote(s.usage, (x) => x.toLocaleString("en-US"))}${cost}  ${oneLine(s.firstPrompt, 60)}`;
  });
  return `${rows.join("\n")}\n`;
}
