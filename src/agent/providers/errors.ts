// Turns what the client libraries throw (HTTP errors, connection failures,
// in-stream error events) into ProviderErrors with a kind the agent can act
// on and a message a user can act on. Duck-typed on the shape both official
// SDKs share (status, headers, error body, cause), so this module does not
// load either SDK.
import { ProviderError, type ProviderErrorKind } from "./types.js";

/** What the classifier needs to know about the request that failed. */
export interface ErrorContext {
  /** "Ollama at http://127.0.0.1:11434/v1", used in messages. */
  target: string;
  model: string;
  /** The request carried native tools (only then can an error mean "tools unsupported"). */
  withTools: boolean;
}

interface SdkErrorShape {
  status?: number;
  headers?: { get(name: string): string | null } | Record<string, string>;
  error?: unknown;
  message?: string;
  cause?: unknown;
  name?: string;
}

/**
 * Messages servers use to refuse native tool calls: Ollama ("... does not support
 * tools"), vLLM started without a tool parser, llama.cpp without --jinja,
 * OpenRouter when no endpoint of the model can call tools, and the generic forms.
 */
const TOOLS_UNSUPPORTED =
  /does not support tools|tools? (?:are |is )?not supported|tool use is not supported|not support (?:tool|function) call|support tool use|enable-auto-tool-choice|tools param requires --jinja|tool_choice.*not supported|function calling is not (?:enabled|supported)/i;

export function isToolsUnsupportedMessage(message: string): boolean {
  return TOOLS_UNSUPPORTED.test(message);
}

const MODEL_MISSING = /model.*(?:not found|does not exist|not exist|unknown|no such)|(?:unknown|invalid) model|not a valid model/i;

function header(headers: SdkErrorShape["headers"], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  return (headers as Record<string, string>)[name];
}

/**
 * How long a 429/503 asks to wait, in milliseconds: `retry-after-ms` (OpenAI's),
 * else `Retry-After` as seconds or as an HTTP date.
 */
export function retryAfterMs(headers: SdkErrorShape["headers"], now = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const ra = header(headers, "retry-after");
  if (ra === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.ceil(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The server's own words: OpenAI `{error: {message}}`, Anthropic `{type: "error", error: {message}}`, Ollama `{error: "..."}`. */
function serverMessage(e: SdkErrorShape): string {
  const body = e.error as Record<string, unknown> | string | undefined;
  if (typeof body === "string") return body;
  const inner = body?.error;
  if (typeof inner === "string") return inner;
  if (inner && typeof (inner as { message?: unknown }).message === "string") return (inner as { message: string }).message;
  if (body && typeof body.message === "string") return body.message;
  // The SDK's message starts with the status ("429 ..."): drop it, the caller says it.
  return (e.message ?? "").replace(/^\d{3}\s+/, "") || "(no message)";
}

/** The lowest-level reason a connection failed (ECONNREFUSED, ENOTFOUND...), from a chain of causes. */
export function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$|^UND_ERR/.test(code)) return code;
    const errors = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(errors) && errors.length) {
      const inner = networkCode(errors[0]);
      if (inner) return inner;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused (nothing listens there)",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_SOCKET: "the connection was closed",
};

/** Codes that mean the connection was never made (as opposed to one that broke while the answer streamed). */
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT"]);

function networkDetail(err: unknown): string {
  const code = networkCode(err);
  if (code && NETWORK_WORDS[code]) return NETWORK_WORDS[code];
  // The innermost cause says the most ("fetch failed" → "connect ECONNREFUSED ...", "other side closed").
  let e = err as { cause?: unknown; message?: string } | undefined;
  let message = e?.message;
  for (let depth = 0; e?.cause && depth < 6; depth++) {
    e = e.cause as { cause?: unknown; message?: string };
    if (e?.message) message = e.message;
  }
  return code && message ? `${message} (${code})` : (message ?? code ?? String(err));
}

function kindForStatus(status: number, message: string, ctx: ErrorContext): ProviderErrorKind {
  if (ctx.withTools && status >= 400 && status < 500 && isToolsUnsupportedMessage(message)) return "tools_unsupported";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limit";
  if (status === 404) return MODEL_MISSING.test(message) ? "model_not_found" : "bad_request";
  if (status === 408 || status === 409 || status >= 500) return "server";
  return "bad_request";
}

function hintFor(kind: ProviderErrorKind, ctx: ErrorContext): string {
  switch (kind) {
    case "auth":
      return " (check the API key)";
    case "model_not_found":
      return ` (is "${ctx.model}" the right name, and available there?)`;
    case "tools_unsupported":
      return " (native tool calls are not available with this model: use --protocol text)";
    case "bad_request":
      return "";
    default:
      return "";
  }
}

/**
 * Classifies anything a client library threw. Callers handle their own aborts and
 * timeouts first (they know whether they fired); this sees the rest.
 */
export function classifyError(err: unknown, ctx: ErrorContext): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = (err ?? {}) as SdkErrorShape;
  const name = (err as { constructor?: { name?: string } })?.constructor?.name ?? e.name ?? "";
  if (typeof e.status === "number") {
    const message = serverMessage(e);
    const kind = kindForStatus(e.status, message, ctx);
    if (e.status === 404 && kind === "bad_request") {
      return new ProviderError(`${ctx.target} answered 404: ${message} (is the base URL right? OpenAI-compatible servers usually end in /v1)`, kind, 404);
    }
    const wait = kind === "rate_limit" || kind === "server" ? retryAfterMs(e.headers) : undefined;
    return new ProviderError(`${ctx.target} answered ${e.status}: ${message}${hintFor(kind, ctx)}`, kind, e.status, wait);
  }
  if (/ConnectionTimeout/.test(name)) return new ProviderError(`${ctx.target} did not answer in time`, "timeout");
  if (/ConnectionError/.test(name) || CONNECT_FAILURES.has(networkCode(err) ?? "")) {
    return new ProviderError(`cannot reach ${ctx.target}: ${networkDetail(err)}`, "unreachable");
  }
  if (e.error !== undefined) {
    // An error event inside the stream (no HTTP status): OpenAI `data: {"error": ...}`, Anthropic `event: error`.
    const message = serverMessage(e);
    if (ctx.withTools && isToolsUnsupportedMessage(message)) return new ProviderError(`${ctx.target}: ${message}${hintFor("tools_unsupported", ctx)}`, "tools_unsupported");
    return new ProviderError(`${ctx.target} sent an error in the stream: ${message}`, "server");
  }
  // Anything else while reading the body: undici's "terminated", a socket reset, bad JSON in an event.
  return new ProviderError(`the stream from ${ctx.target} broke: ${networkDetail(err)}`, "stream_broken");
}

/** A client library that cannot be loaded: an installation problem, not worth a retry. */
export function missingPackage(name: string, err: unknown): ProviderError {
  return new ProviderError(`cannot load the "${name}" package (${(err as Error)?.message ?? String(err)}); reinstall rt`, "bad_request");
}

/** A request that got no response at all (refused, no route, a port fetch will not use): unreachable, in plain words. */
export function connectionFailure(err: unknown, target: string): ProviderError {
  return new ProviderError(`cannot reach ${target}: ${networkDetail(err)}`, "unreachable");
}

/** The error of a model-list request (a probe, not a turn): aborted, or classified. */
export function listModelsError(err: unknown, target: string, signal?: AbortSignal): ProviderError {
  if (signal?.aborted) return new ProviderError("the request was aborted", "aborted");
  return classifyError(err, { target, model: "", withTools: false });
}
