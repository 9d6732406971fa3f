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

const MODEL_MISSING =
  /model.*(?:not found|does not exist|not exist|unknown|no such)|(?:unknown|invalid) model|not a valid model/i;

function header(headers: SdkErrorShape["headers"], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function")
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
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

/** What an error body says, whatever its shape (see describeBody). */
export interface ErrorDetails {
  message: string;
  /** A status the body itself carries (OpenRouter's `code: 400`, Groq's `status_code`). */
  status?: number;
  /** `type` (Anthropic "overloaded_error", OpenAI "invalid_request_error") or a textual `code` ("rate_limit_exceeded"). */
  type?: string;
  /** OpenAI: the request parameter the error is about ("temperature"). */
  param?: string;
  /** A router's upstream provider that failed (OpenRouter's `metadata.provider_name`). */
  provider?: string;
  /** What the upstream provider said (OpenRouter's `metadata.raw`), already part of `message`. */
  upstream?: string;
}

/** Upstream words that say the upstream provider is rate-limiting (transient: worth a retry after a wait). */
const UPSTREAM_RATE_LIMIT =
  /rate[- ]?limit|too many requests|retry shortly|overloaded|capacity|\b429\b|resource.?exhausted/i;

/** Whether an error is a router's upstream rate limit (OpenRouter: "Provider returned error", the upstream's words). */
export function isUpstreamRateLimit(d: ErrorDetails | undefined): boolean {
  return !!d?.upstream && UPSTREAM_RATE_LIMIT.test(d.upstream);
}

/**
 * OpenRouter's `metadata.raw`: the upstream provider's own answer, a string (maybe JSON text) or an
 * object. Its message when it has one, else the text itself.
 */
function upstreamWords(raw: unknown): string | undefined {
  let v = raw;
  if (typeof v === "string") {
    const t = v.trim();
    if (!t) return undefined;
    try {
      v = JSON.parse(t) as unknown;
    } catch {
      return t;
    }
    if (typeof v !== "object" || v === null) return t;
  }
  if (!v || typeof v !== "object") return undefined;
  const said = describeBody(v).message;
  return said || JSON.stringify(v).slice(0, 600);
}

/**
 * The server's own words and classification, from the shapes providers use:
 *   OpenAI            {error: {message, type, param, code}}
 *   Anthropic         {type: "error", error: {type, message}}
 *   OpenRouter        {error: {code: 400, message, metadata?}}   (in a stream: the chunk's `error`)
 *   Groq              {error: {message, type, code, status_code}}
 *   Ollama            {error: "..."}
 *   or a bare string (a proxy's page, an in-stream error object's message).
 */
export function describeBody(body: unknown, fallback = ""): ErrorDetails {
  if (typeof body === "string") return { message: body || fallback };
  if (!body || typeof body !== "object") return { message: fallback };
  const b = body as Record<string, unknown>;
  const inner = b.error;
  if (typeof inner === "string") return { message: inner };
  const e = inner && typeof inner === "object" ? (inner as Record<string, unknown>) : b;
  const out: ErrorDetails = {
    message: typeof e.message === "string" ? e.message : typeof b.message === "string" ? b.message : fallback,
  };
  const status = [e.status_code, e.status, e.code, b.status, b.code].find(
    (v) => typeof v === "number" && v >= 100 && v < 600,
  ) as number | undefined;
  if (status !== undefined) out.status = status;
  const type = [e.type, typeof e.code === "string" ? e.code : undefined].find(
    (v) => typeof v === "string" && v !== "error",
  ) as string | undefined;
  if (type) out.type = type;
  if (typeof e.code === "string" && out.type !== e.code) out.type = `${out.type ? `${out.type}/` : ""}${e.code}`;
  if (typeof e.param === "string") out.param = e.param;
  // OpenRouter: {message: "Provider returned error", metadata: {raw, provider_name}}: the upstream's words say what happened.
  const meta = e.metadata && typeof e.metadata === "object" ? (e.metadata as Record<string, unknown>) : undefined;
  if (meta) {
    const provider = typeof meta.provider_name === "string" && meta.provider_name ? meta.provider_name : undefined;
    const upstream = upstreamWords(meta.raw);
    if (provider) out.provider = provider;
    if (upstream) {
      out.upstream = upstream;
      out.message = `${out.message || "error"} (${provider ?? "upstream provider"}: ${upstream})`;
    } else if (provider) out.message = `${out.message || "error"} (${provider})`;
  }
  return out;
}

/** The server's own words: OpenAI `{error: {message}}`, Anthropic `{type: "error", error: {message}}`, Ollama `{error: "..."}`. */
function serverMessage(e: SdkErrorShape): string {
  const described = describeBody(e.error).message;
  if (described) return described;
  // The SDK's message starts with the status ("429 ..."): drop it, the caller says it.
  return (e.message ?? "").replace(/^\d{3}\s+/, "") || "(no message)";
}

/** The provider's words, quoted, so that they read as the provider's and not as rt's. */
export function quoted(message: string): string {
  const one = message.trim().replace(/\s*\n\s*/g, " ");
  return `"${one.length > 600 ? `${one.slice(0, 600)}…` : one}"`;
}

/** Sampling parameters some models refuse (see sampling.ts). */
const SAMPLING_PARAMETER = /\b(temperature|top_p|top_k)\b/;

/** The sampling parameter a 400 is about, when it names one: OpenAI's `param`, or the message ("`temperature` is deprecated for this model"). */
export function rejectedSamplingParameter(details: ErrorDetails): string | undefined {
  if (details.param && SAMPLING_PARAMETER.test(details.param)) return details.param.match(SAMPLING_PARAMETER)![1];
  return details.message.match(SAMPLING_PARAMETER)?.[1];
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
const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

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
  if (status === 408 || status >= 500) return "server";
  return "bad_request";
}

/**
 * The kind of an error that arrived inside a stream (an HTTP 200), from what it says:
 * a status in the body, else its type or code. What says nothing recognizable is
 * `stream_error`, which is not retried: only what is known to be transient is.
 */
function kindForStreamError(d: ErrorDetails, ctx: ErrorContext): ProviderErrorKind {
  if (d.status !== undefined) return kindForStatus(d.status, d.message, ctx);
  const t = (d.type ?? "").toLowerCase();
  if (/overloaded|server_error|api_error|internal|unavailable|timeout/.test(t)) return "server";
  if (/rate_limit|insufficient_quota|quota/.test(t)) return "rate_limit";
  if (/authentication|permission|invalid_api_key/.test(t)) return "auth";
  if (/not_found/.test(t)) return MODEL_MISSING.test(d.message) ? "model_not_found" : "bad_request";
  if (/invalid_request|request_too_large|context_length|tool_use_failed|bad_request|invalid_prompt/.test(t))
    return "bad_request";
  if (ctx.withTools && isToolsUnsupportedMessage(d.message)) return "tools_unsupported";
  if (MODEL_MISSING.test(d.message)) return "model_not_found";
  return "stream_error";
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
    const d = describeBody(e.error, serverMessage(e));
    const message = d.message;
    const kind = kindForStatus(e.status, message, ctx);
    if (e.status === 404 && kind === "bad_request") {
      return new ProviderError(
        `${ctx.target} answered 404: ${quoted(message)} (is the base URL right? OpenAI-compatible servers usually end in /v1)`,
        kind,
        404,
        undefined,
        d,
      );
    }
    const wait = kind === "rate_limit" || kind === "server" ? retryAfterMs(e.headers) : undefined;
    return new ProviderError(
      `${ctx.target} answered ${e.status}: ${quoted(message)}${hintFor(kind, ctx)}`,
      kind,
      e.status,
      wait,
      d,
    );
  }
  if (/ConnectionTimeout/.test(name)) return new ProviderError(`${ctx.target} did not answer in time`, "timeout");
  if (/ConnectionError/.test(name) || CONNECT_FAILURES.has(networkCode(err) ?? "")) {
    return new ProviderError(`cannot reach ${ctx.target}: ${networkDetail(err)}`, "unreachable");
  }
  if (e.error !== undefined) {
    // An error inside the stream (no HTTP status): OpenAI-style `data: {"error": ...}`, Anthropic `event: error`, Ollama `{"error"}`.
    const d = describeBody(e.error, "(no message)");
    const kind = kindForStreamError(d, ctx);
    const status = d.status !== undefined ? ` ${d.status}` : d.type ? ` (${d.type})` : "";
    return new ProviderError(
      `${ctx.target} sent an error in the stream${status}: ${quoted(d.message)}${hintFor(kind, ctx)}`,
      kind,
      d.status,
      undefined,
      d,
    );
  }
  // Anything else while reading the body: undici's "terminated", a socket reset, bad JSON in an event.
  return new ProviderError(`the stream from ${ctx.target} broke: ${networkDetail(err)}`, "stream_broken");
}

/** A client library that cannot be loaded: an installation problem, not worth a retry. */
export function missingPackage(name: string, err: unknown): ProviderError {
  return new ProviderError(
    `cannot load the "${name}" package (${(err as Error)?.message ?? String(err)}); reinstall rt`,
    "bad_request",
  );
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
