// The `web` section of the configuration, with its defaults (limits.ts).
import { loadConfigDetailed, ConfigError, WebConfigSchema } from "../config.js";
import type { z } from "zod";
import { ToolError } from "../errors.js";
import { WEB_FETCH_MAX_BYTES, WEB_FETCH_TIMEOUT_MS } from "../limits.js";
import type { FetchRules } from "./fetchPage.js";

export type WebConfig = z.infer<typeof WebConfigSchema>;

/** The web section of the merged configuration (an empty one when there is none). A bad key is a ToolError naming it (the web tools' callers get it as data). */
export function webConfig(workspace: { root: string; env: NodeJS.ProcessEnv }): WebConfig {
  try {
    const loaded = loadConfigDetailed(workspace, { notice: false });
    return (loaded.config.web ?? {}) as WebConfig;
  } catch (e) {
    if (e instanceof ConfigError) throw new ToolError(e.message);
    throw e;
  }
}

export function fetchRules(cfg: WebConfig, signal?: AbortSignal): FetchRules {
  return {
    allowedDomains: cfg.allowed_domains ?? [],
    blockedDomains: cfg.blocked_domains ?? [],
    allowPrivate: cfg.allow_private_addresses === true,
    timeoutMs: cfg.fetch_timeout_ms ?? WEB_FETCH_TIMEOUT_MS,
    maxBytes: WEB_FETCH_MAX_BYTES,
    ...(signal ? { signal } : {}),
  };
}

export { ConfigError };
