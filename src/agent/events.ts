// The agent's event stream: everything a face (one-shot print,
// stream-json, REPL) learns about a turn comes through these events, and the
// session log records them. Field names are snake_case because they are wire
// data (`--output-format stream-json`), like ToolResult's.
import type { FinishReason, ProviderErrorKind } from "./providers/types.js";

/** How the model reaches the tools: native tool calls, or fenced blocks in its text (the text protocol). */
export type Protocol = "tools" | "text";

/** Token counts of one model request, a turn or a session. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** Input tokens written to a prompt cache (part of input_tokens); absent when none were. */
  cache_write_tokens?: number;
  reasoning_tokens: number;
  /** Model requests counted. */
  requests: number;
}

export type AgentErrorKind =
  | ProviderErrorKind
  /** `--max-turns` model requests were made and the model still wanted more. */
  | "max_turns"
  /** The provider paused the model's turn (Anthropic "pause_turn") more often than rt continues it in a row. */
  | "paused"
  /** The same tool call came AGENT_LOOP_REPEAT_LIMIT times in a row. */
  | "loop_detected"
  /** Ctrl-C (or the caller's signal) stopped the turn; the session keeps what was done. */
  | "interrupted"
  /** The model's answer was cut at its output limit (finish reason "length"; Anthropic "max_tokens"). */
  | "length"
  /** The model declined to answer (Anthropic's "refusal", an OpenAI `refusal`). */
  | "refusal"
  /** The provider's content filter stopped the answer (finish reason "content_filter"). */
  | "content_filter"
  /** A bug or an unexpected failure in rt itself. */
  | "internal"
  /** A hook blocked the prompt (UserPromptSubmit) or stopped the turn (continue: false). */
  | "hook_blocked";

/** One item of the todo list (todo_write). */
export interface TodoItem {
  content: string;
  /** The item as a present participle, shown while it is in progress ("Running tests"). */
  activeForm: string;
  status: "pending" | "in_progress" | "completed";
}

/**
 * An event of the stream. Events a subagent produced while the parent's
 * `task` call ran carry `parent_tool_use_id`: the id of that call (stream-json
 * prints the field as Claude Code does; a UI nests them under the call).
 */
export type AgentStreamEvent = AgentEvent & { parent_tool_use_id?: string };

export type AgentEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  | {
      type: "tool_start";
      id: string;
      name: string;
      /** The parsed arguments, or the raw text when they are not valid JSON. */
      args: unknown;
      protocol: Protocol;
    }
  | {
      type: "tool_end";
      id: string;
      name: string;
      success: boolean;
      /** What the model is given (cut to the output limit). */
      output: string;
      error?: string;
      /** Set when the output was cut: where the whole of it was saved (relative to the root). */
      saved_output?: string;
      /** Wall-clock times (ms since the epoch, fractional) around the tool's own work. */
      started_at: number;
      ended_at: number;
    }
  | { type: "tool_blocked"; id: string; name: string; args: unknown; reason: string }
  /**
   * One model request ended: how (`finish_reason`, the same words for every provider;
   * `stop_reason`, the provider's own word when it has one), the tool calls it made,
   * the tokens it took. "error" when the stream failed or was interrupted first.
   */
  | {
      type: "model_turn_end";
      finish_reason: FinishReason;
      stop_reason?: string;
      tool_calls: number;
      usage: UsageTotals;
    }
  | {
      type: "turn_complete";
      session_id: string;
      /** The final answer: the text of the model's last message. */
      text: string;
      /** Model requests made in this turn. */
      model_turns: number;
      /** How the last model request ended ("stop" for a finished answer). */
      finish_reason: FinishReason;
      protocol: Protocol;
      usage: UsageTotals;
      session_usage: UsageTotals;
      /** In the configured currency unit (USD by convention), when prices are configured for the model. */
      cost?: number;
      session_cost?: number;
    }
  | { type: "compact_start"; reason: "auto" | "manual"; tokens: number; context_window: number }
  | {
      type: "compact_end";
      tokens_before: number;
      tokens_after: number;
      /** Tool outputs replaced by a placeholder. */
      pruned: number;
      /** True when older history was replaced by a summary made by the model. */
      summarized: boolean;
    }
  /**
   * A message the user sent while the turn ran (RunOptions.steering), added to the conversation at a
   * tool-call boundary: after the tool results, before the next model request. The log holds it as a user
   * message (a prompt, for resume and rewind).
   */
  | { type: "steered"; text: string }
  /** The todo list changed (todo_write): the whole new list. */
  | { type: "todos"; todos: TodoItem[] }
  /** A `task` call started a subagent; its own events follow with parent_tool_use_id = this id. */
  | { type: "subagent_start"; parent_tool_use_id: string; subagent_type: string; description: string; model: string }
  /** The subagent of that `task` call ended: its usage and cost (already counted in the parent's totals too). */
  | {
      type: "subagent_end";
      parent_tool_use_id: string;
      subagent_type: string;
      success: boolean;
      usage: UsageTotals;
      cost?: number;
    }
  /**
   * Something the user should know that is neither the model's text nor an error (a protocol fallback...).
   * level "warning": something failed that the user must not miss (a hook that failed, a hooks configuration
   * rt could not use): every face says it on standard error or as an error, whatever the output mode.
   */
  | { type: "notice"; message: string; level?: "warning" }
  | {
      type: "error";
      kind: AgentErrorKind;
      message: string;
      session_id: string;
      /** How the last model request ended, when it ended (length, refusal, content_filter, error...). */
      finish_reason?: FinishReason;
      /** length, refusal, content_filter: the partial answer as the model wrote it (the session keeps it, marked). */
      text?: string;
      usage?: UsageTotals;
      session_usage?: UsageTotals;
    };

export function zeroUsage(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0, requests: 0 };
}

export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    ...(a.cache_write_tokens || b.cache_write_tokens
      ? { cache_write_tokens: (a.cache_write_tokens ?? 0) + (b.cache_write_tokens ?? 0) }
      : {}),
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
    requests: a.requests + b.requests,
  };
}
