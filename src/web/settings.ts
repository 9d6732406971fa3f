// The `web` section of the configuration, with its defaults (limits.ts).
import { loadConfigDetailed, ConfigError, WebConfigSchema } from "../config.js";
import type { z } from "zod";
import { WEB_FETCH_MAX_BYTES, WEB_FETCH_TIMEOUT_MS } from "../limits.js";
import type { FetchRules } from "./fetchPage.js";

export type WebConfig = z.infer<typeof WebConfigSchema>;

/** The web section of the merged configuration (an empty one when there is none). Throws ConfigError naming a bad key. */
export function webConfig(workspace: { root: string; env: NodeJS.ProcessEnv }): WebConfig {
  const loaded = loadConfigDetailed(workspace, { notice: false });
  return (loaded.config.web ?? {}) as WebConfig;
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
