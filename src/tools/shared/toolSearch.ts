// Finding tools by what they do: the agent's tool_search (deferred tools) and
// mcp_search (the user's MCP servers' tools) rank the same way.
import type { Tool } from "../types.js";

/**
 * Tools matching a query, best first: each word found in a tool's name scores 3, in its
 * description 1; a tool with no word is left out. "select:a,b" names tools exactly, in that order.
 */
export function rankTools(tools: Iterable<Tool>, query: string, limit: number): Tool[] {
  const q = query.trim();
  const all = [...tools];
  if (q.startsWith("select:")) {
    return q
      .slice(7)
      .split(",")
      .map((n) => all.find((t) => t.name === n.trim()))
      .filter((t): t is Tool => t !== undefined)
      .slice(0, limit);
  }
  const words = q
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  const scored: Array<{ t: Tool; score: number }> = [];
  for (const t of all) {
    const name = t.name.toLowerCase();
    const desc = t.description.toLowerCase();
    let score = 0;
    for (const w of words) {
      if (name.includes(w)) score += 3;
      else if (desc.includes(w)) score += 1;
    }
    if (score > 0) scored.push({ t, score });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name))
    .slice(0, limit)
    .map((s) => s.t);
}
