// Options every provider takes: where the server is, the key, and how patient to be.
import type { RetryOptions, TimeoutOptions } from "./retry.js";

export interface ProviderOptions {
  /** The API's base URL: "http://127.0.0.1:11434/v1" (OpenAI-compatible), "https://api.anthropic.com" (Anthropic). */
  baseURL: string;
  /** Absent for local servers that need none. */
  apiKey?: string;
  /** How the server is named in error messages; default: the base URL. */
  target?: string;
  /** Partial overrides of DEFAULT_RETRY (tests bring the delays down to milliseconds). */
  retry?: Partial<RetryOptions>;
  /** Partial overrides of DEFAULT_TIMEOUTS. */
  timeouts?: Partial<TimeoutOptions>;
  /** Extra HTTP headers sent with every request (OpenRouter's HTTP-Referer, a proxy's auth...). */
  headers?: Record<string, string>;
}

/**
 * Runs `make` (a client library's constructor) with these environment variables
 * out of sight, and puts them back. The official clients read credentials and
 * extra headers from the environment on construction (OPENAI_ADMIN_KEY becomes an
 * Authorization header, OPENAI_CUSTOM_HEADERS and ANTHROPIC_CUSTOM_HEADERS add
 * any header, ANTHROPIC_AUTH_TOKEN a bearer token); rt decides which key and
 * headers a request carries (resolve.ts), so the clients must not find their own.
 * Construction is synchronous: nothing else runs while the variables are hidden.
 */
export function withoutEnv<T>(names: readonly string[], make: () => T): T {
  const saved = new Map<string, string>();
  for (const n of names) {
    const v = process.env[n];
    if (v !== undefined) {
      saved.set(n, v);
      delete process.env[n];
    }
  }
  try {
    return make();
  } finally {
    for (const [n, v] of saved) process.env[n] = v;
  }
}
