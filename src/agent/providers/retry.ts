// Retries, timeouts and aborts around one streamed model call, the same for
// every provider. The client libraries' own retries are switched off
// (maxRetries: 0) because they cannot know the rule that matters here: a call
// may be retried only while nothing of its answer has been handed to the agent.
// Once a part has been yielded, a failure is reported (stream_broken, timeout)
// and the agent keeps what it got.
import {
  PROVIDER_FIRST_PART_TIMEOUT_MS,
  PROVIDER_IDLE_TIMEOUT_MS,
  PROVIDER_MAX_RETRIES,
  PROVIDER_MAX_RETRY_AFTER_MS,
  PROVIDER_RETRY_BASE_DELAY_MS,
  PROVIDER_RETRY_MAX_DELAY_MS,
} from "../../base/limits.js";
import { ProviderError, type ModelRequest, type ProviderErrorKind, type StreamPart } from "./types.js";
import { classifyError, isUpstreamRateLimit } from "./errors.js";

export interface RetryOptions {
  /** Retries after the first attempt (0: no retry). */
  maxRetries: number;
  /** Delay before the first retry; doubled for each further one, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is reported. */
  maxRetryAfterMs: number;
}

export interface TimeoutOptions {
  /** From sending the request to the first event of the answer. */
  firstPartMs: number;
  /** Between two events of the answer (a hung server). */
  idleMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: PROVIDER_MAX_RETRIES,
  baseDelayMs: PROVIDER_RETRY_BASE_DELAY_MS,
  maxDelayMs: PROVIDER_RETRY_MAX_DELAY_MS,
  maxRetryAfterMs: PROVIDER_MAX_RETRY_AFTER_MS,
};

export const DEFAULT_TIMEOUTS: TimeoutOptions = {
  firstPartMs: PROVIDER_FIRST_PART_TIMEOUT_MS,
  idleMs: PROVIDER_IDLE_TIMEOUT_MS,
};

/**
 * Failures worth another try while nothing has been yielded: transient by nature
 * (a refused or reset connection, a 5xx or an overloaded server, a timeout, a stream
 * cut before it said anything). A rate limit only when the server says how long to
 * wait (Retry-After), or when a router says its upstream provider is rate-limiting
 * (OpenRouter's "temporarily rate-limited upstream. Please retry shortly"): a 429
 * without either is usually a quota, which waiting does not fix.
 * What a 4xx or an in-stream error says about the request is never retried.
 */
const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set([
  "unreachable",
  "rate_limit",
  "server",
  "timeout",
  "stream_broken",
]);

function transient(err: ProviderError): boolean {
  if (!RETRYABLE.has(err.kind)) return false;
  if (err.kind === "rate_limit") return err.retryAfterMs !== undefined || isUpstreamRateLimit(err.details);
  return true;
}

/**
 * The delay before retry number `retry` (0-based) after `err`, or undefined when
 * the error should be reported instead (not transient, retries used up, or the
 * server asks to wait longer than we are willing to).
 */
export function retryDelay(err: ProviderError, retry: number, opts: RetryOptions): number | undefined {
  if (!transient(err) || retry >= opts.maxRetries) return undefined;
  if (err.retryAfterMs !== undefined) return err.retryAfterMs <= opts.maxRetryAfterMs ? err.retryAfterMs : undefined;
  return Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** retry);
}

/**
 * One attempt at a call: sends the request with `signal` and yields the parts of
 * its answer. `alive()` is called on every event received from the server, parts
 * or not, so keep-alive chunks count against the idle timeout.
 */
export type Attempt = (signal: AbortSignal, alive: () => void) => AsyncIterable<StreamPart>;

export interface RunOptions {
  signal?: AbortSignal;
  retry: RetryOptions;
  timeouts: TimeoutOptions;
  /** Turns whatever an attempt threw into a ProviderError. */
  classify: (err: unknown) => ProviderError;
  /** "Ollama at http://...": for timeout messages. */
  target: string;
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderError("the request was aborted", "aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ProviderError("the request was aborted", "aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `attempt` with timeouts, abort and bounded retries (see the top of this file). */
export async function* runWithRetries(attempt: Attempt, opts: RunOptions): AsyncGenerator<StreamPart> {
  for (let retry = 0; ; retry++) {
    if (opts.signal?.aborted) throw new ProviderError("the request was aborted", "aborted");
    const controller = new AbortController();
    const onUserAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onUserAbort, { once: true });
    let timedOut: "first" | "idle" | undefined;
    let timer: NodeJS.Timeout | undefined;
    let sawEvent = false;
    const arm = (ms: number, which: "first" | "idle") => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = which;
        controller.abort(new Error("timeout"));
      }, ms);
    };
    const alive = () => {
      sawEvent = true;
      arm(opts.timeouts.idleMs, "idle");
    };
    /** Parts of the answer itself handed out (usage and native bookkeeping do not count: they do not stop a retry). */
    let yielded = 0;
    let finished = false;
    // Why the attempt ended early, when it did; the client libraries end an aborted stream silently.
    const interruption = (): ProviderError | undefined => {
      if (opts.signal?.aborted) return new ProviderError("the request was aborted", "aborted");
      if (timedOut === "first") {
        return new ProviderError(
          `${opts.target} sent nothing for ${seconds(opts.timeouts.firstPartMs)} after the request (timeout)`,
          "timeout",
        );
      }
      if (timedOut === "idle") {
        const where = yielded > 0 ? "in the middle of the answer" : "after it started answering";
        return new ProviderError(
          `${opts.target} stopped sending for ${seconds(opts.timeouts.idleMs)} ${where} (timeout)`,
          "timeout",
        );
      }
      return undefined;
    };
    let failure: ProviderError;
    try {
      arm(opts.timeouts.firstPartMs, "first");
      for await (const part of attempt(controller.signal, alive)) {
        if (!sawEvent) alive();
        // The consumer's own pace between parts is not the server's silence.
        clearTimeout(timer);
        if (part.type !== "usage" && part.type !== "native") yielded++;
        yield part;
        if (controller.signal.aborted) break;
        arm(opts.timeouts.idleMs, "idle");
      }
      const cut = interruption();
      if (!cut) {
        finished = true;
        return;
      }
      failure = cut;
    } catch (err) {
      failure = interruption() ?? opts.classify(err);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onUserAbort);
      // The consumer stopped early (break), or the attempt failed: end the HTTP request.
      if (!finished) controller.abort(new Error("stream closed"));
    }
    if (failure.kind === "aborted") throw failure;
    if (yielded > 0) {
      if (failure.kind === "timeout" || failure.kind === "stream_broken") throw failure;
      // Never retried once part of the answer is out; the kind stays what the error said.
      throw new ProviderError(
        `the answer broke off after it started: ${failure.message}`,
        failure.kind,
        failure.status,
        undefined,
        failure.details,
      );
    }
    const delay = retryDelay(failure, retry, opts.retry);
    if (delay === undefined) {
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > opts.retry.maxRetryAfterMs) {
        throw new ProviderError(
          `${failure.message} (the server asks to wait ${seconds(failure.retryAfterMs)}; not waiting that long)`,
          failure.kind,
          failure.status,
          failure.retryAfterMs,
        );
      }
      if (retry > 0 && transient(failure)) {
        const message = `${failure.message} (gave up after ${retry + 1} attempts)`;
        throw new ProviderError(message, failure.kind, failure.status, failure.retryAfterMs, failure.details);
      }
      throw failure;
    }
    await sleep(delay, opts.signal);
  }
}

/**
 * One model turn of `req` with retries, as every provider streams it: errors
 * are classified with the request's model and whether it carried tools.
 */
export function streamTurn(
  req: ModelRequest,
  opts: { target: string; retry: RetryOptions; timeouts: TimeoutOptions },
  attempt: (req: ModelRequest, signal: AbortSignal, alive: () => void) => AsyncIterable<StreamPart>,
): AsyncIterable<StreamPart> {
  const ctx = { target: opts.target, model: req.model, withTools: !!req.tools?.length };
  return runWithRetries((signal, alive) => attempt(req, signal, alive), {
    signal: req.signal,
    retry: opts.retry,
    timeouts: opts.timeouts,
    target: opts.target,
    classify: (err) => classifyError(err, ctx),
  });
}
