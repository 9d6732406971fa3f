// Options every provider takes: where the server is, the key, and how patient to be.
import type { RetryOptions, TimeoutOptions } from "./retry.js";
import type { VisionSetting } from "./vision.js";
export { withoutEnv } from "../../base/envScope.js";

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
  /** Which models take images (`providers.<name>.vision`): all, none, or these names ("*" ends a prefix). */
  vision?: VisionSetting;
}
