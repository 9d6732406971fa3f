// The agent's section of rt's configuration (`"agent": {...}` in
// ~/.config/rt/config.json or .rt/config.json), with the defaults from
// limits.ts. Flags override it. From a project the user has not trusted, only
// the harmless keys apply (limits, temperature, prices; `approval` only when it
// asks at least as often as the default, `protocol` only tools or auto: see
// src/base/configTrust.ts); loadConfig has already left the others out.
import * as z from "zod";
import { loadConfig } from "../base/config.js";
import { APPROVAL_MODES, type ApprovalMode } from "./approval.js";
import type { ProtocolChoice } from "./session.js";
import type { UsageTotals } from "./events.js";
import type { ToolChoice } from "./providers/types.js";
import { AGENT_TOOL_SETS, type ToolSetChoice } from "./toolSet.js";
import {
  AGENT_COMPACT_THRESHOLD,
  AGENT_DEFAULT_MAX_TURNS,
  AGENT_DEFAULT_SUBAGENT_DEPTH,
  AGENT_MAX_SUBAGENT_DEPTH,
  AGENT_TOOL_OUTPUT_MAX_CHARS,
  PROMPT_CACHE_WRITE_PRICE_FACTOR,
} from "../base/limits.js";

/** Prices in currency units (USD by convention) per million tokens. */
export const PriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Input tokens read from a prompt cache (default: the input price). */
  cached_input: z.number().nonnegative().optional(),
  /**
   * Input tokens written to a prompt cache (Anthropic: 1.25 times the input price for the
   * 5-minute cache, 2 times for the 1-hour one). Default: PROMPT_CACHE_WRITE_PRICE_FACTOR times
   * the input price.
   */
  cache_write: z.number().nonnegative().optional(),
});
export type Price = z.infer<typeof PriceSchema>;

export type PromptCacheChoice = "5m" | "1h" | "off";
export const PROMPT_CACHE_CHOICES: readonly PromptCacheChoice[] = ["5m", "1h", "off"];

export const AgentSettingsSchema = z
  .object({
    max_turns: z.number().int().positive().optional(),
    /** Tool output longer than this is cut for the model (the whole is saved under .rt/tool-output/). */
    tool_output_max_chars: z.number().int().min(1000).optional(),
    /** Fraction of the context window at which compaction starts (0.8). */
    compact_threshold: z.number().gt(0).max(1).optional(),
    /** Overrides what the provider reports (or the default) for every model. */
    context_window: z.number().int().positive().optional(),
    approval: z.enum(APPROVAL_MODES as [ApprovalMode, ...ApprovalMode[]]).optional(),
    protocol: z.enum(["tools", "text", "auto"]).optional(),
    temperature: z.number().min(0).max(2).optional(),
    /** Whether the model may answer (auto), must call a tool first (required) or calls none (none). */
    tool_choice: z.enum(["auto", "required", "none"]).optional(),
    max_output_tokens: z.number().int().positive().optional(),
    /** Keyed by "provider/model" (or just the model name). */
    prices: z.record(z.string(), PriceSchema).optional(),
    /** The tools offered to the model: "default" (all) or "lean" (a few, briefly described, for small local models). */
    tools: z.enum(AGENT_TOOL_SETS as [ToolSetChoice, ...ToolSetChoice[]]).optional(),
    /** "provider/model" that tools ask (web_fetch applies its prompt to a page with it); default: the session's model. */
    small_model: z.string().min(1).optional(),
    /** Offer the seed-compatibility tools (edit_range, insert_at, edit_file, grep_file, scroll) too (`--seed-names`). */
    seed_tools: z.boolean().optional(),
    /** false: offer every tool in every request instead of deferring the rarely used ones behind tool_search. */
    defer_tools: z.boolean().optional(),
    /** Prompt caching: "5m" (default) or "1h", the time to live of Anthropic's cache entries; "off" asks for none. */
    prompt_cache: z.enum(PROMPT_CACHE_CHOICES as [PromptCacheChoice, ...PromptCacheChoice[]]).optional(),
    /** How deep subagents (task) nest: 0 none, 1 (default) the main agent's only, 2 theirs too... */
    subagent_depth: z.number().int().min(0).max(AGENT_MAX_SUBAGENT_DEPTH).optional(),
  })
  .strict();

export interface AgentSettings {
  maxTurns: number;
  toolOutputMaxChars: number;
  compactThreshold: number;
  contextWindow?: number;
  approval?: ApprovalMode;
  protocol?: ProtocolChoice;
  temperature?: number;
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  prices: Record<string, Price>;
  toolSet: ToolSetChoice;
  smallModel?: string;
  subagentDepth: number;
  promptCache: PromptCacheChoice;
  seedTools: boolean;
  deferTools: boolean;
}

/** The agent section of the merged configuration, validated, with defaults. Throws naming the problem. */
export function loadAgentSettings(workspace: { root: string; env: NodeJS.ProcessEnv }): AgentSettings {
  const raw = (loadConfig(workspace) as Record<string, unknown>).agent ?? {};
  const parsed = AgentSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const what = parsed.error.issues.map((i) => `agent.${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`configuration: ${what}`);
  }
  const a = parsed.data;
  return {
    maxTurns: a.max_turns ?? AGENT_DEFAULT_MAX_TURNS,
    toolOutputMaxChars: a.tool_output_max_chars ?? AGENT_TOOL_OUTPUT_MAX_CHARS,
    compactThreshold: a.compact_threshold ?? AGENT_COMPACT_THRESHOLD,
    ...(a.context_window !== undefined ? { contextWindow: a.context_window } : {}),
    ...(a.approval ? { approval: a.approval } : {}),
    ...(a.protocol ? { protocol: a.protocol } : {}),
    ...(a.temperature !== undefined ? { temperature: a.temperature } : {}),
    ...(a.tool_choice !== undefined ? { toolChoice: a.tool_choice } : {}),
    ...(a.max_output_tokens !== undefined ? { maxOutputTokens: a.max_output_tokens } : {}),
    prices: a.prices ?? {},
    toolSet: a.tools ?? "default",
    ...(a.small_model ? { smallModel: a.small_model } : {}),
    subagentDepth: a.subagent_depth ?? AGENT_DEFAULT_SUBAGENT_DEPTH,
    promptCache: a.prompt_cache ?? "5m",
    seedTools: a.seed_tools ?? false,
    deferTools: a.defer_tools ?? true,
  };
}

/** The price of a model: "provider/model" first, then the bare model name. */
export function priceFor(prices: Record<string, Price>, label: string): Price | undefined {
  return prices[label] ?? prices[label.slice(label.indexOf("/") + 1)];
}

/**
 * Cost of some usage: input tokens read from a prompt cache at the cached price, those written
 * to it at the cache-write price (both are part of the input count), the rest at the input price.
 */
export function costOf(u: UsageTotals, p: Price): number {
  const cached = Math.min(u.cached_input_tokens, u.input_tokens);
  const written = Math.min(u.cache_write_tokens ?? 0, u.input_tokens - cached);
  const fresh = u.input_tokens - cached - written;
  const writePrice = p.cache_write ?? p.input * PROMPT_CACHE_WRITE_PRICE_FACTOR;
  return (
    (fresh * p.input + cached * (p.cached_input ?? p.input) + written * writePrice + u.output_tokens * p.output) /
    1_000_000
  );
}
