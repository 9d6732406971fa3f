// The `web` section of the configuration, with its defaults (limits.ts).
import { loadConfigDetailed, ConfigError, WebConfigSchema } from "../base/config.js";
import type { z } from "zod";
import { ToolError } from "../base/errors.js";
import { WEB_FETCH_MAX_BYTES, WEB_FETCH_TIMEOUT_MS } from "../base/limits.js";
import type { FetchRules } from "./fetchPage.js";
import { parseAllowHosts } from "./addresses.js";

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

/**
 * The web section and what of the project's web allowances waits for trust: a project's
 * web.allow_private_addresses or web.allow_hosts applies only once the folder is trusted, and a
 * refusal says so (else the user would wonder why the setting does nothing).
 */
export function webSettings(workspace: { root: string; env: NodeJS.ProcessEnv }): {
  config: WebConfig;
  privateNote?: string;
} {
  try {
    const loaded = loadConfigDetailed(workspace, { notice: false });
    const config = (loaded.config.web ?? {}) as WebConfig;
    const waiting = loaded.trust.ignored
      .filter((k) => k.path[0] === "web" && (k.path[1] === "allow_private_addresses" || k.path[1] === "allow_hosts"))
      .map((k) => `web.${k.path[1]}`);
    if (!waiting.length) return { config };
    const how =
      loaded.trust.state === "changed" ? "its configuration changed since you trusted it" : "the folder is not trusted";
    const note =
      `; the project's ${waiting.join(" and ")} (${loaded.files.project}) ${waiting.length === 1 ? "is" : "are"} ignored because ${how}: ` +
      `\`rt trust ${loaded.trust.root}\` applies ${waiting.length === 1 ? "it" : "them"}, or set ${waiting.length === 1 ? "it" : "them"} in your own configuration`;
    return { config, privateNote: note };
  } catch (e) {
    if (e instanceof ConfigError) throw new ToolError(e.message);
    throw e;
  }
}

export function fetchRules(cfg: WebConfig, signal?: AbortSignal, privateNote?: string): FetchRules {
  let allowHosts;
  try {
    allowHosts = cfg.allow_hosts?.length ? parseAllowHosts(cfg.allow_hosts) : undefined;
  } catch (e) {
    throw new ToolError((e as Error).message);
  }
  return {
    allowedDomains: cfg.allowed_domains ?? [],
    blockedDomains: cfg.blocked_domains ?? [],
    allowPrivate: cfg.allow_private_addresses === true,
    ...(allowHosts ? { allowHosts } : {}),
    ...(privateNote ? { privateNote } : {}),
    timeoutMs: cfg.fetch_timeout_ms ?? WEB_FETCH_TIMEOUT_MS,
    maxBytes: WEB_FETCH_MAX_BYTES,
    ...(signal ? { signal } : {}),
  };
}

export { ConfigError };
