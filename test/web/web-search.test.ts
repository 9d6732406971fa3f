// web_search against fake backends on loopback that answer with each real
// API's documented JSON (Brave Web Search, Tavily, Exa, SearXNG), checking
// the requests they receive (path, key header, parameters) as well.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { rt, tempTree } from "../helpers.js";
import { createWorkspace } from "../../src/workspace/workspace.js";
import { mcpToolList } from "../../src/faces/mcp/toolList.js";
import { sessionToolSet } from "../../src/agent/toolSet.js";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
let seen: Seen[] = [];
let server: http.Server;
let base = "";

const BRAVE = {
  type: "search",
  query: { original: "rust async" },
  web: {
    type: "search",
    results: [
      {
        title: "Async in <strong>Rust</strong>",
        url: "https://rust-lang.github.io/async-book/",
        description: "The <strong>async</strong> book &amp; more",
        is_source_local: false,
      },
      { title: "Tokio", url: "https://tokio.rs/", description: "An asynchronous runtime." },
      { title: "Spam", url: "https://spam.example/rust", description: "buy now" },
    ],
  },
};
const TAVILY = {
  query: "rust async",
  response_time: 1.2,
  images: [],
  results: [
    {
      title: "Tokio tutorial",
      url: "https://tokio.rs/tokio/tutorial",
      content: "Tokio is a runtime for writing reliable asynchronous applications.",
      score: 0.98,
      raw_content: null,
    },
  ],
};
const EXA = {
  requestId: "abc",
  results: [
    {
      id: "https://docs.rs/futures",
      title: "futures - Rust",
      url: "https://docs.rs/futures",
      publishedDate: "2024-01-01",
      author: null,
      text: "Abstractions for asynchronous programming.",
    },
  ],
};
const SEARXNG = {
  query: "rust async",
  number_of_results: 1,
  results: [
    {
      url: "https://blog.rust-lang.org/async",
      title: "Async Rust",
      content: "Announcing async.",
      engine: "duckduckgo",
      score: 1,
    },
  ],
};

before(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const json = (v: unknown, status = 200) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(v));
      };
      if (req.url?.startsWith("/brave/res/v1/web/search")) return json(BRAVE);
      if (req.url === "/tavily/search") return json(TAVILY);
      if (req.url === "/exa/search") return json(EXA);
      if (req.url?.startsWith("/searx/search")) return json(SEARXNG);
      if (req.url?.startsWith("/denied")) return json({ error: "invalid key" }, 401);
      json({ error: "no" }, 404);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
});

function home(web: Record<string, unknown> | undefined): string {
  const h = tempTree({}, "rt-config-");
  fs.mkdirSync(path.join(h, "rt"));
  fs.writeFileSync(path.join(h, "rt", "config.json"), JSON.stringify(web ? { web } : {}));
  return h;
}

async function searchCli(
  args: Record<string, unknown>,
  web: Record<string, unknown> | undefined,
  env: Record<string, string> = {},
) {
  const r = await rt(["call", "web_search", "--args", JSON.stringify(args)], {
    cwd: tempTree({ "a.txt": "x\n" }),
    env: { XDG_CONFIG_HOME: home(web), BRAVE_API_KEY: undefined as never, ...env },
  });
  return JSON.parse(r.stdout) as Record<string, any>;
}

test("Brave: the key in X-Subscription-Token, results as title, URL, snippet with the markup removed; domain filters applied", async () => {
  seen = [];
  const r = await searchCli(
    { query: "rust async", blocked_domains: ["spam.example"] },
    { search: { backend: "brave", base_url: `${base}/brave/res/v1/web/search` } },
    { BRAVE_API_KEY: "bk-1" },
  );
  assert.equal(r.success, true, r.error);
  assert.equal(seen[0].headers["x-subscription-token"], "bk-1");
  assert.match(seen[0].url, /\?q=rust\+async&count=\d+/);
  assert.deepEqual(r.results, [
    { title: "Async in Rust", url: "https://rust-lang.github.io/async-book/", snippet: "The async book & more" },
    { title: "Tokio", url: "https://tokio.rs/", snippet: "An asynchronous runtime." },
  ]);
  assert.match(
    r.output,
    /^1\. Async in Rust\n {3}https:\/\/rust-lang\.github\.io\/async-book\/\n {3}The async book & more\n2\. Tokio/,
  );
  const only = await searchCli(
    { query: "rust async", allowed_domains: ["tokio.rs"] },
    { search: { backend: "brave", base_url: `${base}/brave/res/v1/web/search` } },
    { BRAVE_API_KEY: "bk-1" },
  );
  assert.deepEqual(
    only.results.map((x: { url: string }) => x.url),
    ["https://tokio.rs/"],
  );
});

test("Tavily, Exa and SearXNG: each request in its API's shape, each answer read", async () => {
  seen = [];
  const t = await searchCli(
    { query: "rust async", max_results: 3, allowed_domains: ["tokio.rs"] },
    { search: { backend: "tavily", base_url: `${base}/tavily/search` } },
    { TAVILY_API_KEY: "tv-1" },
  );
  assert.equal(t.success, true, t.error);
  assert.equal(seen[0].method, "POST");
  assert.equal(seen[0].headers.authorization, "Bearer tv-1");
  const tb = JSON.parse(seen[0].body);
  assert.equal(tb.query, "rust async");
  assert.deepEqual(tb.include_domains, ["tokio.rs"]);
  assert.deepEqual(t.results, [
    {
      title: "Tokio tutorial",
      url: "https://tokio.rs/tokio/tutorial",
      snippet: "Tokio is a runtime for writing reliable asynchronous applications.",
    },
  ]);
  const e = await searchCli(
    { query: "futures" },
    { search: { backend: "exa", base_url: `${base}/exa/search`, api_key_env: "MY_EXA" } },
    { MY_EXA: "ex-1" },
  );
  assert.equal(seen[1].headers["x-api-key"], "ex-1");
  assert.equal(JSON.parse(seen[1].body).numResults, 8);
  assert.deepEqual(e.results, [
    { title: "futures - Rust", url: "https://docs.rs/futures", snippet: "Abstractions for asynchronous programming." },
  ]);
  const s = await searchCli({ query: "rust async" }, { search: { backend: "searxng", base_url: `${base}/searx` } });
  assert.match(seen[2].url, /^\/searx\/search\?q=rust\+async&format=json$/);
  assert.deepEqual(s.results, [
    { title: "Async Rust", url: "https://blog.rust-lang.org/async", snippet: "Announcing async." },
  ]);
});

test("errors: no backend says how to configure one; a missing key names its variable; an HTTP error is reported", async () => {
  const none = await searchCli({ query: "x y" }, undefined);
  assert.equal(none.success, false);
  assert.match(
    none.error,
    /web_search needs a search backend: add to ~\/\.config\/rt\/config\.json \{"web": \{"search": \{"backend": "brave"\}\}\}/,
  );
  const noKey = await searchCli(
    { query: "x y" },
    { search: { backend: "brave", base_url: `${base}/brave/res/v1/web/search` } },
  );
  assert.match(noKey.error, /BRAVE_API_KEY is not set/);
  const denied = await searchCli({ query: "x y" }, { search: { backend: "searxng", base_url: `${base}/denied` } });
  assert.match(denied.error, /HTTP 40[14]/);
  const bad = await searchCli(
    { query: "x", max_results: 99 },
    { search: { backend: "searxng", base_url: `${base}/searx` } },
  );
  assert.equal(bad.success, false);
});

test("not offered (agent, MCP tools/list) without a backend; offered once configured", async () => {
  // The agent's: offered, or named by tool_search (web tools are deferred behind it by default).
  const reachable = (tools: readonly { name: string; description: string }[]) =>
    tools.flatMap((t) => (t.name === "tool_search" ? (t.description.match(/\w+/g) ?? []) : [t.name]));
  const names = (web: Record<string, unknown> | undefined) => {
    const ws = createWorkspace({
      root: tempTree({ "a.txt": "x\n" }),
      env: { ...process.env, XDG_CONFIG_HOME: home(web) },
    });
    return {
      mcp: mcpToolList(ws).map((e) => e.name),
      agent: reachable(sessionToolSet({ workspace: ws, approval: "auto" }).offered),
    };
  };
  const without = names(undefined);
  const withIt = names({ search: { backend: "searxng", base_url: `${base}/searx` } });
  assert.ok(!without.mcp.includes("web_search") && !without.agent.includes("web_search"));
  assert.ok(withIt.mcp.includes("web_search") && withIt.agent.includes("web_search"));
  assert.ok(
    without.mcp.includes("web_fetch") && without.agent.includes("web_fetch"),
    "web_fetch needs no configuration",
  );
});
