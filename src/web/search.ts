// web_search's backends, each through its own documented HTTP API:
//   brave    GET  https://api.search.brave.com/res/v1/web/search?q=&count=   X-Subscription-Token
//            → { web: { results: [{ title, url, description }] } }
//   tavily   POST https://api.tavily.com/search {query, max_results, include_domains, exclude_domains}
//            Authorization: Bearer → { results: [{ title, url, content }] }
//   exa      POST https://api.exa.ai/search {query, numResults, includeDomains, excludeDomains, contents}
//            x-api-key → { results: [{ title, url, text?, highlights? }] }
//   searxng  GET  <your instance>/search?q=&format=json (the instance must enable the json format)
//            → { results: [{ title, url, content }] }
// Results are cut to title, URL and a short snippet, and
// filtered by domain here too, whatever the backend did with the lists.
import { ToolError } from "../base/errors.js";
import { inDomain } from "./addresses.js";
import { WEB_SEARCH_TIMEOUT_MS } from "../base/limits.js";

export type SearchBackend = "brave" | "tavily" | "exa" | "searxng";

export interface SearchConfig {
  backend: SearchBackend;
  api_key_env?: string;
  base_url?: string;
}

export interface SearchQuery {
  query: string;
  maxResults: number;
  allowedDomains: readonly string[];
  blockedDomains: readonly string[];
  signal?: AbortSignal;
}

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

const DEFAULT_KEY_ENV: Record<SearchBackend, string | undefined> = {
  brave: "BRAVE_API_KEY",
  tavily: "TAVILY_API_KEY",
  exa: "EXA_API_KEY",
  searxng: undefined,
};
const DEFAULT_BASE: Record<SearchBackend, string | undefined> = {
  brave: "https://api.search.brave.com/res/v1/web/search",
  tavily: "https://api.tavily.com/search",
  exa: "https://api.exa.ai/search",
  searxng: undefined,
};
const SNIPPET_MAX_CHARS = 300;

/** How to configure a backend, for the error a call without one gets. */
export const SEARCH_SETUP_HINT =
  'web_search needs a search backend: add to ~/.config/rt/config.json {"web": {"search": {"backend": "brave"}}} with BRAVE_API_KEY set (or "tavily" with TAVILY_API_KEY, "exa" with EXA_API_KEY, or "searxng" with "base_url" of your instance)';

function snippetOf(text: unknown): string {
  if (typeof text !== "string") return "";
  const plain = text
    .replace(/<[^>]*>/g, "")
    .replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e] ?? "",
    )
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > SNIPPET_MAX_CHARS ? `${plain.slice(0, SNIPPET_MAX_CHARS - 1)}…` : plain;
}

function apiKey(cfg: SearchConfig, env: NodeJS.ProcessEnv): string | undefined {
  const name = cfg.api_key_env ?? DEFAULT_KEY_ENV[cfg.backend];
  if (!name) return undefined;
  const key = env[name];
  if (!key)
    throw new ToolError(
      `web_search (${cfg.backend}): ${name} is not set; set it to your ${cfg.backend} API key (or name another variable with web.search.api_key_env)`,
    );
  return key;
}

async function call(url: string, init: RequestInit, backend: string, signal?: AbortSignal): Promise<unknown> {
  // One signal for the deadline and the caller's cancel (AbortSignal.any needs Node 20.3).
  const both = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    both.abort();
  }, WEB_SEARCH_TIMEOUT_MS);
  const cancel = () => both.abort();
  signal?.addEventListener("abort", cancel, { once: true });
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, signal: both.signal });
    text = await res.text();
  } catch (e) {
    const why = timedOut ? `no answer within ${WEB_SEARCH_TIMEOUT_MS / 1000} s` : (e as Error).message;
    throw new ToolError(`web_search (${backend}): ${why}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", cancel);
  }
  if (!res.ok)
    throw new ToolError(`web_search (${backend}): HTTP ${res.status}${text ? `: ${text.slice(0, 300)}` : ""}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ToolError(
      `web_search (${backend}): the answer is not JSON (${text.slice(0, 120)}); check web.search.base_url`,
    );
  }
}

const arr = (v: unknown): Array<Record<string, unknown>> =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === "object") : [];

export async function search(cfg: SearchConfig, q: SearchQuery, env: NodeJS.ProcessEnv): Promise<SearchResult[]> {
  const base = cfg.base_url ?? DEFAULT_BASE[cfg.backend];
  if (!base)
    throw new ToolError(`web_search (${cfg.backend}): web.search.base_url is required: the address of your instance`);
  const key = apiKey(cfg, env);
  // Ask for more when filtering here may drop some.
  const want = Math.min(20, q.maxResults + (q.allowedDomains.length || q.blockedDomains.length ? 10 : 0));
  let raw: Array<{ title: unknown; url: unknown; text: unknown }>;
  const json = { "content-type": "application/json", accept: "application/json" };
  switch (cfg.backend) {
    case "brave": {
      const u = new URL(base);
      u.searchParams.set("q", q.query);
      u.searchParams.set("count", String(want));
      const body = (await call(
        u.href,
        { headers: { accept: "application/json", "x-subscription-token": key! } },
        "brave",
        q.signal,
      )) as { web?: { results?: unknown } };
      raw = arr(body.web?.results).map((r) => ({ title: r.title, url: r.url, text: r.description }));
      break;
    }
    case "tavily": {
      const body = (await call(
        base,
        {
          method: "POST",
          headers: { ...json, authorization: `Bearer ${key}` },
          body: JSON.stringify({
            query: q.query,
            max_results: want,
            ...(q.allowedDomains.length ? { include_domains: q.allowedDomains } : {}),
            ...(q.blockedDomains.length ? { exclude_domains: q.blockedDomains } : {}),
          }),
        },
        "tavily",
        q.signal,
      )) as { results?: unknown };
      raw = arr(body.results).map((r) => ({ title: r.title, url: r.url, text: r.content }));
      break;
    }
    case "exa": {
      const body = (await call(
        base,
        {
          method: "POST",
          headers: { ...json, "x-api-key": key! },
          body: JSON.stringify({
            query: q.query,
            numResults: want,
            ...(q.allowedDomains.length ? { includeDomains: q.allowedDomains } : {}),
            ...(q.blockedDomains.length ? { excludeDomains: q.blockedDomains } : {}),
            contents: { text: { maxCharacters: SNIPPET_MAX_CHARS } },
          }),
        },
        "exa",
        q.signal,
      )) as { results?: unknown };
      raw = arr(body.results).map((r) => ({
        title: r.title,
        url: r.url,
        text: r.text ?? (Array.isArray(r.highlights) ? r.highlights.join(" … ") : r.summary),
      }));
      break;
    }
    case "searxng": {
      const u = new URL(base.replace(/\/?$/, "/search"));
      u.searchParams.set("q", q.query);
      u.searchParams.set("format", "json");
      const body = (await call(u.href, { headers: { accept: "application/json" } }, "searxng", q.signal)) as {
        results?: unknown;
      };
      raw = arr(body.results).map((r) => ({ title: r.title, url: r.url, text: r.content }));
      break;
    }
  }
  const out: SearchResult[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    if (typeof r.url !== "string" || seen.has(r.url)) continue;
    let host: string;
    try {
      const u = new URL(r.url);
      if (u.protocol !== "http:" && u.protocol !== "https:") continue;
      host = u.hostname;
    } catch {
      continue;
    }
    if (q.blockedDomains.some((d) => inDomain(host, d))) continue;
    if (q.allowedDomains.length && !q.allowedDomains.some((d) => inDomain(host, d))) continue;
    seen.add(r.url);
    out.push({ title: snippetOf(r.title) || r.url, url: r.url, snippet: snippetOf(r.text) });
    if (out.length >= q.maxResults) break;
  }
  return out;
}
