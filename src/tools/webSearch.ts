import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import type { Workspace } from "../workspace/workspace.js";
import { loadConfigDetailed } from "../base/config.js";
import { WEB_SEARCH_DEFAULT_RESULTS, WEB_SEARCH_MAX_RESULTS } from "../base/limits.js";

const domains = z.array(z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+$/, 'domains look like "example.com"')).optional();

/** The configured backend, or undefined (then the tool is not offered). A configuration rt cannot read counts as none here; the call says why. */
function configured(workspace: Workspace): boolean {
  try {
    const web = loadConfigDetailed(workspace, { notice: false }).config.web as { search?: unknown } | undefined;
    return web?.search !== undefined;
  } catch {
    return false;
  }
}

export const webSearchTool = defineTool({
  name: "web_search",
  aliases: ["WebSearch"],
  brief: "Search the web: title, URL and a snippet per result.",
  description: `Search the web (the configured backend): title, URL and a short snippet per result, ${WEB_SEARCH_DEFAULT_RESULTS} by default. allowed_domains / blocked_domains filter the results. Read a result with web_fetch.`,
  schema: () =>
    z
      .object({
        query: z.string().min(2).describe("What to search for"),
        allowed_domains: domains.describe("Only results from these"),
        blocked_domains: domains.describe("No results from these"),
        max_results: z
          .number()
          .int()
          .min(1)
          .max(WEB_SEARCH_MAX_RESULTS)
          .optional()
          .describe(`Default ${WEB_SEARCH_DEFAULT_RESULTS}`),
      })
      .strict(),
  readOnly: true,
  idempotent: true,
  approvalScope: () => "web_search",
  unavailable: (workspace) => (configured(workspace) ? undefined : "no search backend is configured (web.search)"),
  async handler(args, { workspace, signal }) {
    const [{ search, SEARCH_SETUP_HINT }, { webConfig }] = await Promise.all([
      import("../web/search.js"),
      import("../web/settings.js"),
    ]);
    const cfg = webConfig(workspace);
    if (!cfg.search) throw new ToolError(SEARCH_SETUP_HINT);
    const results = await search(
      cfg.search,
      {
        query: args.query,
        maxResults: args.max_results ?? WEB_SEARCH_DEFAULT_RESULTS,
        allowedDomains: [...(args.allowed_domains ?? []), ...(cfg.allowed_domains ?? [])],
        blockedDomains: [...(args.blocked_domains ?? []), ...(cfg.blocked_domains ?? [])],
        ...(signal ? { signal } : {}),
      },
      workspace.env,
    );
    const text =
      results.length === 0
        ? `No results for ${JSON.stringify(args.query)}.`
        : results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ""}`).join("\n");
    return ok(text, { query: args.query, backend: cfg.search.backend, count: results.length, results });
  },
});
