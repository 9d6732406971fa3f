// web_fetch's cache: a page fetched in the last 15 minutes is not fetched
// again (Claude Code's rule), in this process and across rt commands through
// `.rt/web/`. A repository can commit anything under `.rt/`, so entries are
// MAC-signed state (StateStore.writeSignedJson): a planted entry, which could
// put words of the repository's choosing in a page the user asked for, is not
// rt's own and is ignored.
import { createHash } from "node:crypto";
import type { StateStore } from "../workspace/state.js";
import { WEB_CACHE_TTL_MS } from "../base/limits.js";

export interface CachedPage {
  url: string;
  /** Where the page was finally read from (after same-site redirects). */
  final_url: string;
  content_type: string;
  title?: string;
  markdown: string;
  /** The address the page came from: a cached page is served only while the rules would still reach it. */
  address?: string;
  /** True when the Markdown was cut to WEB_FETCH_MAX_MARKDOWN_BYTES. */
  cut: boolean;
  fetched_at: number;
}

const memory = new Map<string, CachedPage>();

function keyOf(url: string): string {
  return createHash("sha256").update(url).digest("hex").slice(0, 32);
}

function fresh(p: CachedPage | undefined, url: string, now: number): p is CachedPage {
  return (
    !!p &&
    p.url === url &&
    typeof p.markdown === "string" &&
    typeof p.fetched_at === "number" &&
    now - p.fetched_at >= 0 &&
    now - p.fetched_at < WEB_CACHE_TTL_MS
  );
}

export function cachedPage(state: StateStore, url: string, now = Date.now()): CachedPage | undefined {
  const mem = memory.get(url);
  if (fresh(mem, url, now)) return mem;
  const stored = state.readSignedJson<CachedPage>("web", `${keyOf(url)}.json`);
  if (fresh(stored, url, now) && typeof stored.final_url === "string" && typeof stored.content_type === "string") {
    memory.set(url, stored);
    return stored;
  }
  return undefined;
}

export function cachePage(state: StateStore, page: CachedPage): void {
  memory.set(page.url, page);
  state.writeSignedJsonBestEffort(page, "web", `${keyOf(page.url)}.json`);
}
