// Cost accounting: the tokens of each model request, added up per turn and per
// session (and per subagent, whose totals can be added to its parent's), with
// the cost when prices are configured for the model.
import type { Usage } from "./providers/types.js";
import { addUsage, type UsageTotals } from "./events.js";
import { costOf, type Price } from "./settings.js";

/** Running totals: a turn's, a session's, a subagent's. `cost` stays undefined until a priced request is counted. */
export interface UsageAccount {
  usage: UsageTotals;
  cost?: number;
}

/** One request's usage as the events and the session log count it. */
export function usageOf(u: Usage | undefined): UsageTotals {
  return {
    input_tokens: u?.inputTokens ?? 0,
    output_tokens: u?.outputTokens ?? 0,
    cached_input_tokens: u?.cachedInputTokens ?? 0,
    ...(u?.cacheWriteTokens ? { cache_write_tokens: u.cacheWriteTokens } : {}),
    reasoning_tokens: u?.reasoningTokens ?? 0,
    requests: 1,
  };
}

/** The cost of one request's usage at `price`, or undefined without a price. */
export function requestCost(used: UsageTotals, price: Price | undefined): number | undefined {
  return price ? costOf(used, price) : undefined;
}

/** Adds one request's usage (and cost, when known) to each account. */
export function charge(used: UsageTotals, cost: number | undefined, ...accounts: UsageAccount[]): void {
  for (const a of accounts) {
    // Replaced, not changed in place: events already handed out keep the totals they were sent with.
    a.usage = addUsage(a.usage, used);
    if (cost !== undefined) a.cost = (a.cost ?? 0) + cost;
  }
}
