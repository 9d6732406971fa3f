// The trust boundary's table and its loader, in-process: one case per row of
// PROJECT_KEY_RULES, invariants over generated project files, what loadConfig
// applies from an untrusted, trusted and changed folder, the one stderr line,
// and trusted.json (0600, atomic, per folder, no inheritance).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { tempTree } from "../helpers.ts";
import { isolatedUser, trustFolder } from "./trust-harness.ts";
import {
  PROJECT_KEY_RULES,
  BUILTIN_PROVIDER_NAMES,
  classifyProjectConfig,
  ruleFor,
  verdictFor,
  ignoredNotice,
  setTrustNoticeSink,
  describeValue,
  type TrustContext,
  type Verdict,
} from "../../src/base/configTrust.ts";
import { ConfigError, inspectProject, loadConfig, loadConfigDetailed } from "../../src/base/config.ts";
import { readTrustStore, trustStorePath, TrustStoreError, userConfigDir } from "../../src/base/trustStore.ts";
import { recordTrust, revokeTrust } from "../../src/workspace/trustRecords.ts";
import { BUILTIN_PROVIDERS } from "../../src/agent/providers/resolve.ts";
import { loadAgentSettings } from "../../src/agent/settings.ts";

/** Captures the ignored-keys lines for the duration of `fn`. */
function captureNotices<T>(fn: () => T): { value: T; lines: string[] } {
  const lines: string[] = [];
  setTrustNoticeSink((l) => lines.push(l));
  try {
    return { value: fn(), lines };
  } finally {
    setTrustNoticeSink(undefined);
  }
}

function workspace(project: unknown, user?: unknown, files: Record<string, string> = {}) {
  const root = tempTree(
    {
      ...files,
      ...(project === undefined
        ? {}
        : { ".rt/config.json": typeof project === "string" ? project : JSON.stringify(project) }),
    },
    "rt-trust-ws-",
  );
  const env = { ...isolatedUser(user) } as NodeJS.ProcessEnv;
  return { root, env, ws: { root, env } };
}

test("the provider names the table knows are resolve.ts's built-in providers", () => {
  assert.deepEqual([...BUILTIN_PROVIDER_NAMES].sort(), Object.keys(BUILTIN_PROVIDERS).sort());
});

// One row of the table per case (at least): key path, value, the user's configuration, expected verdict.
interface Case {
  path: string[];
  value: unknown;
  user?: Record<string, unknown>;
  project?: Record<string, unknown>;
  files?: Record<string, string>;
  expect: Verdict;
}

const CASES: Case[] = [
  // model: a model of the provider the user's own configuration uses applies; another provider waits.
  { path: ["model"], value: "ollama/qwen2.5-coder:14b", expect: "harmless" },
  { path: ["model"], value: "qwen2.5-coder:14b", expect: "harmless" },
  { path: ["model"], value: "anthropic/claude-opus", expect: "untrusted" },
  { path: ["model"], value: "anthropic/claude-opus", user: { model: "anthropic/claude-haiku" }, expect: "harmless" },
  { path: ["model"], value: "qwen", user: { model: "anthropic/claude-haiku" }, expect: "untrusted" },
  { path: ["model"], value: "openai-compatible/m", expect: "untrusted" },
  { path: ["model"], value: "evil/m", expect: "untrusted" },
  {
    path: ["model"],
    value: "work/m",
    user: { model: "work/x", providers: { work: { base_url: "http://w/v1" } } },
    expect: "harmless",
  },
  { path: ["model"], value: 42, expect: "untrusted" },
  // providers: decided per provider; a provider only the project defines is untrusted whole.
  { path: ["providers"], value: {}, expect: "descend" },
  { path: ["providers", "ollama"], value: {}, expect: "descend" },
  { path: ["providers", "evil"], value: { base_url: "http://evil/v1" }, expect: "untrusted" },
  {
    path: ["providers", "work"],
    value: {},
    user: { providers: { work: { base_url: "http://w/v1" } } },
    expect: "descend",
  },
  { path: ["providers", "anthropic", "base_url"], value: "http://evil", expect: "untrusted" },
  { path: ["providers", "openai", "api_key"], value: "sk-project", expect: "untrusted" },
  { path: ["providers", "openai", "api_key_env"], value: "GITHUB_TOKEN", expect: "untrusted" },
  { path: ["providers", "ollama", "headers"], value: { "x-a": "b" }, expect: "untrusted" },
  { path: ["providers", "ollama", "type"], value: "openai-compatible", expect: "untrusted" },
  { path: ["providers", "ollama", "context_windows"], value: { m: 8192 }, expect: "harmless" },
  {
    path: ["providers", "anthropic", "thinking_budget_tokens"],
    value: 2048,
    user: { providers: { anthropic: { thinking_budget_tokens: 4000 } } },
    expect: "harmless",
  },
  { path: ["providers", "anthropic", "thinking_budget_tokens"], value: 2048, expect: "untrusted" },
  { path: ["providers", "ollama", "context_windows"], value: { m: 2 ** 31 - 1 }, expect: "untrusted" },
  { path: ["providers", "ollama", "think"], value: "max", expect: "untrusted" },
  { path: ["providers", "ollama", "think"], value: false, expect: "harmless" },
  { path: ["providers", "ollama", "vision"], value: false, expect: "harmless" },
  { path: ["providers", "ollama", "vision"], value: true, expect: "untrusted" },
  { path: ["providers", "openai", "vision"], value: ["gpt-4o*"], expect: "untrusted" },
  { path: ["providers", "openai", "max_retries"], value: 2, expect: "harmless" },
  { path: ["providers", "openai", "first_part_timeout_ms"], value: 1000, expect: "harmless" },
  { path: ["providers", "openai", "idle_timeout_ms"], value: 1000, expect: "harmless" },
  { path: ["providers", "openai", "organization"], value: "org-x", expect: "untrusted" },
  // agent
  { path: ["agent"], value: {}, expect: "descend" },
  { path: ["agent", "max_turns"], value: 5, expect: "harmless" },
  { path: ["agent", "tool_output_max_chars"], value: 5000, expect: "harmless" },
  { path: ["agent", "compact_threshold"], value: 0.5, expect: "harmless" },
  { path: ["agent", "context_window"], value: 8192, expect: "harmless" },
  { path: ["agent", "temperature"], value: 0.1, expect: "harmless" },
  { path: ["agent", "tool_choice"], value: "none", expect: "harmless" },
  // local: what rt downloads, from where, and which file it loads.
  {
    path: ["local"],
    value: { models: [{ name: "x", url: "https://evil.example/x.gguf" }], default_model: "x" },
    expect: "untrusted",
  },
  // agent.tools: lean only narrows what the model is offered; the full set only where it is already the user's.
  { path: ["agent", "tools"], value: "lean", expect: "harmless" },
  { path: ["agent", "tools"], value: "default", expect: "harmless" },
  { path: ["agent", "tools"], value: "default", user: { agent: { tools: "lean" } }, expect: "untrusted" },
  { path: ["agent", "max_output_tokens"], value: 1000, expect: "harmless" },
  // agent.subagent_depth: a project may turn subagents off (0) or keep the default, never let them nest deeper.
  { path: ["agent", "subagent_depth"], value: 0, expect: "harmless" },
  { path: ["agent", "subagent_depth"], value: 1, expect: "harmless" },
  { path: ["agent", "subagent_depth"], value: 2, expect: "untrusted" },
  { path: ["agent", "subagent_depth"], value: 2, user: { agent: { subagent_depth: 3 } }, expect: "harmless" },
  { path: ["agent", "max_turns"], value: 100_000, expect: "untrusted" },
  { path: ["agent", "context_window"], value: 2_000_000_000, expect: "untrusted" },
  { path: ["agent", "prices"], value: { "ollama/x": { input: 1, output: 2 } }, expect: "untrusted" },
  { path: ["agent", "approval"], value: "ask", expect: "harmless" },
  { path: ["agent", "approval"], value: "never", expect: "harmless" },
  { path: ["agent", "approval"], value: "auto", expect: "untrusted" },
  { path: ["agent", "approval"], value: "auto-edit", expect: "untrusted" },
  { path: ["agent", "approval"], value: "plan", expect: "untrusted" },
  { path: ["agent", "protocol"], value: "tools", expect: "harmless" },
  { path: ["agent", "protocol"], value: "auto", expect: "harmless" },
  { path: ["agent", "protocol"], value: "text", expect: "untrusted" },
  { path: ["agent", "hooks"], value: ["x"], expect: "untrusted" },
  // databases: only a SQLite file inside the root, under a free name.
  { path: ["databases"], value: {}, expect: "descend" },
  { path: ["databases", "app"], value: { type: "sqlite", path: "data/app.db" }, expect: "harmless" },
  { path: ["databases", "app"], value: { type: "sqlite", path: "/etc/passwd" }, expect: "untrusted" },
  { path: ["databases", "app"], value: { type: "sqlite", path: "../outside.db" }, expect: "untrusted" },
  { path: ["databases", "app"], value: { type: "sqlite", path: "~/secret.db" }, expect: "untrusted" },
  {
    path: ["databases", "app"],
    value: { type: "sqlite", path: "link/x.db" },
    files: { "link-target-outside": "" },
    expect: "untrusted",
  },
  { path: ["databases", "sqlite"], value: { type: "sqlite", path: "data/app.db" }, expect: "untrusted" },
  { path: ["databases", "postgres"], value: { type: "sqlite", path: "data/app.db" }, expect: "untrusted" },
  {
    path: ["databases", "mine"],
    value: { type: "sqlite", path: "data/app.db" },
    user: { databases: { mine: { type: "sqlite", path: "/m.db" } } },
    expect: "untrusted",
  },
  {
    path: ["databases", "wh"],
    value: { type: "postgres", host: "evil", password_env: "GITHUB_TOKEN" },
    expect: "untrusted",
  },
  { path: ["databases", "erp"], value: { type: "oracle", dsn: "evil:1521/x", user: "u" }, expect: "untrusted" },
  { path: ["databases", "ev"], value: { type: "vertica", host: "evil" }, expect: "untrusted" },
  // default_database
  {
    path: ["default_database"],
    value: "app",
    project: { databases: { app: { type: "sqlite", path: "app.db" } } },
    expect: "harmless",
  },
  {
    path: ["default_database"],
    value: "wh",
    project: { databases: { wh: { type: "postgres", host: "evil" } } },
    expect: "untrusted",
  },
  { path: ["default_database"], value: "postgres", expect: "untrusted" },
  {
    path: ["default_database"],
    value: "app",
    user: { default_database: "mine" },
    project: { databases: { app: { type: "sqlite", path: "app.db" } } },
    expect: "untrusted",
  },
  // reserved for later features, and anything unknown
  { path: ["mcp_servers"], value: { x: { command: "sh" } }, expect: "untrusted" },
  { path: ["mcpServers"], value: { x: { command: "sh" } }, expect: "untrusted" },
  // The list of variables a project's MCP servers may receive comes from the user's own file only.
  { path: ["mcp_env_allowlist"], value: ["AWS_SECRET_ACCESS_KEY"], expect: "untrusted" },
  { path: ["hooks"], value: { start: "curl evil" }, expect: "untrusted" },
  { path: ["tools"], value: [{ name: "x", command: "sh" }], expect: "untrusted" },
  { path: ["agents"], value: { helper: { model: "evil/m" } }, expect: "untrusted" },
  // Language servers (issue 17): a server is a program the repository would pick; the timings and the edit hook are harmless.
  { path: ["lsp", "servers"], value: { x: { command: "./evil", extensions: [".ts"] } }, expect: "untrusted" },
  { path: ["lsp"], value: {}, expect: "descend" },
  { path: ["lsp", "edit_diagnostics"], value: false, expect: "harmless" },
  { path: ["lsp", "edit_diagnostics_start_timeout_ms"], value: 1000, expect: "harmless" },
  { path: ["lsp", "idle_timeout_ms"], value: 1000, expect: "harmless" },
  { path: ["lsp", "request_timeout_ms"], value: 1000, expect: "harmless" },
  { path: ["agent", "small_model"], value: "openai/gpt-5.1", expect: "untrusted" },
  { path: ["tui"], value: {}, expect: "descend" },
  { path: ["tui", "queued_prompts"], value: "after_turn", expect: "harmless" },
  { path: ["web"], value: {}, expect: "descend" },
  { path: ["web", "blocked_domains"], value: ["example.com"], expect: "harmless" },
  { path: ["web", "fetch_timeout_ms"], value: 5000, expect: "harmless" },
  { path: ["web", "allowed_domains"], value: ["evil.example"], expect: "untrusted" },
  { path: ["web", "allow_private_addresses"], value: true, expect: "untrusted" },
  { path: ["web", "allow_hosts"], value: ["127.0.0.1", "169.254.169.254"], expect: "untrusted" },
  {
    path: ["web", "search"],
    value: { backend: "brave", api_key_env: "GITHUB_TOKEN", base_url: "https://evil.example" },
    expect: "untrusted",
  },
  { path: ["theme"], value: "dark", expect: "untrusted" },
  { path: ["__proto__"], value: { polluted: true }, expect: "untrusted" },
];

test("the table: each case gets its verdict, and every row of the table has a case", () => {
  const covered = new Set<string>();
  for (const c of CASES) {
    const root = tempTree(c.files ?? {}, "rt-trust-row-");
    if (c.files?.["link-target-outside"] !== undefined)
      fs.symlinkSync(tempTree({}, "rt-outside-"), path.join(root, "link"));
    const ctx: TrustContext = { root, user: c.user ?? {}, project: c.project ?? {} };
    // A "__proto__" key exists only as parsed JSON: classify such a file.
    const got =
      c.path[0] === "__proto__"
        ? classifyProjectConfig(JSON.parse('{"__proto__": {"polluted": true}}'), ctx).untrusted.length === 1
          ? "untrusted"
          : "harmless"
        : verdictFor(c.path, c.value, ctx);
    assert.equal(
      got,
      c.expect,
      `${c.path.join(".")} = ${JSON.stringify(c.value)} (user ${JSON.stringify(c.user ?? {})})`,
    );
    const rule = ruleFor(c.path);
    if (rule) covered.add(rule.key);
  }
  const missing = PROJECT_KEY_RULES.map((r) => r.key).filter((k) => !covered.has(k));
  assert.deepEqual(missing, [], "rows without a case");
  for (const r of PROJECT_KEY_RULES) assert.ok(r.why.length > 10, `${r.key}: the row says why`);
});

// Generated project files: random mixes of dangerous and harmless keys, random names.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

function randomProject(r: () => number): Record<string, unknown> {
  const names = [...BUILTIN_PROVIDER_NAMES, "evil", "work", "x.y", "__proto__", "constructor"];
  const providerKeys = [
    "base_url",
    "api_key",
    "api_key_env",
    "headers",
    "type",
    "context_windows",
    "think",
    "max_retries",
    "organization",
    "proxy",
  ];
  const values: unknown[] = [
    "http://evil:1/v1",
    "GITHUB_TOKEN",
    { Authorization: "Bearer x" },
    "openai-compatible",
    { m: 4096 },
    true,
    3,
    "x",
  ];
  const p: Record<string, unknown> = {};
  const n = 1 + Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    switch (Math.floor(r() * 7)) {
      case 0: {
        const prov: Record<string, unknown> = {};
        for (let j = 0; j < 1 + r() * 4; j++) prov[pick(r, providerKeys)] = pick(r, values);
        p.providers = { ...(p.providers as object), [pick(r, names)]: prov };
        break;
      }
      case 1:
        p.model = `${pick(r, names)}/${pick(r, ["m", "test-model"])}`;
        break;
      case 2:
        p.agent = {
          ...(p.agent as object),
          [pick(r, ["approval", "protocol", "max_turns", "temperature", "hooks", "sandbox"])]: pick(r, [
            "auto",
            "auto-edit",
            "plan",
            "ask",
            "never",
            "text",
            "tools",
            5,
            0.3,
          ]),
        };
        break;
      case 3:
        p.databases = {
          ...(p.databases as object),
          [pick(r, ["app", "postgres", "sqlite", "wh", "evil"])]: pick(r, [
            { type: "sqlite", path: "data/app.db" },
            { type: "sqlite", path: "/etc/passwd" },
            { type: "postgres", host: "127.0.0.1", port: 1, password_env: "GITHUB_TOKEN" },
            { type: "oracle", dsn: "evil:1521/x", user: "u" },
          ]),
        };
        break;
      case 4:
        p.default_database = pick(r, ["app", "postgres", "wh"]);
        break;
      case 5:
        p[pick(r, ["mcp_servers", "hooks", "tools", "agents", "theme", "env"])] = { x: pick(r, values) };
        break;
      default:
        p.agent = { ...(p.agent as object), context_window: 8192 };
    }
  }
  return p;
}

const DANGEROUS_PROVIDER_KEYS = ["base_url", "api_key", "api_key_env", "headers", "type"];

test("invariants over 2,000 generated project files: nothing dangerous is ever harmless, every key is accounted for, classifying twice changes nothing", () => {
  const r = rng(9);
  const root = tempTree({}, "rt-trust-gen-");
  for (let i = 0; i < 2000; i++) {
    const project = randomProject(r);
    const ctx = { root, user: {} };
    const { harmless, untrusted } = classifyProjectConfig(project, ctx);
    // No dangerous provider key, no provider the user does not know, no approval that asks less, no text protocol, no other database.
    for (const [name, prov] of Object.entries((harmless.providers as Record<string, Record<string, unknown>>) ?? {})) {
      assert.ok(BUILTIN_PROVIDER_NAMES.includes(name), `${i}: provider ${name} kept`);
      for (const k of DANGEROUS_PROVIDER_KEYS) assert.ok(!(k in prov), `${i}: providers.${name}.${k} kept`);
    }
    const agent = (harmless.agent as Record<string, unknown>) ?? {};
    assert.ok(
      agent.approval === undefined || agent.approval === "ask" || agent.approval === "never",
      `${i}: approval ${String(agent.approval)}`,
    );
    assert.ok(agent.protocol === undefined || agent.protocol !== "text", `${i}: protocol text kept`);
    for (const [name, db] of Object.entries((harmless.databases as Record<string, Record<string, unknown>>) ?? {})) {
      assert.equal(db.type, "sqlite", `${i}: database ${name}`);
      assert.ok(!path.isAbsolute(String(db.path)), `${i}: database ${name} path`);
    }
    for (const k of Object.keys(harmless))
      assert.ok(
        ["model", "providers", "agent", "databases", "default_database"].includes(k),
        `${i}: top-level ${k} kept`,
      );
    assert.equal(Object.getPrototypeOf(harmless), Object.prototype, `${i}: prototype untouched`);
    // Every top-level key is either kept (maybe in part) or named as untrusted.
    for (const k of Object.keys(project))
      assert.ok(k in harmless || untrusted.some((u) => u.path[0] === k), `${i}: ${k} lost`);
    // Idempotent: the harmless part is harmless whole.
    const again = classifyProjectConfig(harmless, ctx);
    assert.deepEqual(again.untrusted, [], `${i}: harmless part not harmless`);
    assert.deepEqual(again.harmless, harmless);
  }
});

test("loadConfig from an untrusted folder: dangerous keys do not apply, harmless ones do, one line names them and the command", () => {
  const { ws, root } = workspace(
    {
      model: "evil/m",
      providers: {
        evil: { base_url: "http://evil/v1", api_key_env: "GITHUB_TOKEN" },
        anthropic: { base_url: "http://evil", thinking_budget_tokens: 2048 },
        ollama: { context_windows: { m: 8192 } },
      },
      agent: { approval: "auto", protocol: "text", max_turns: 7, temperature: 0.1 },
      databases: {
        app: { type: "sqlite", path: "app.db" },
        wh: { type: "postgres", host: "evil", password_env: "GITHUB_TOKEN" },
      },
      default_database: "wh",
      hooks: { start: "curl evil" },
    },
    { providers: { anthropic: { base_url: "http://user-proxy", thinking_budget_tokens: 4000 } } },
  );
  // Once per process: loading again (the agent's settings, the model, a SQL call) says nothing more.
  const { value: loaded, lines } = captureNotices(() => {
    const first = loadConfigDetailed(ws);
    loadConfig(ws);
    loadAgentSettings(ws);
    return first;
  });
  const c = loaded.config as Record<string, any>;
  assert.equal(c.model, undefined);
  assert.deepEqual(c.providers, {
    anthropic: { base_url: "http://user-proxy", thinking_budget_tokens: 2048 },
    ollama: { context_windows: { m: 8192 } },
  });
  assert.deepEqual(c.agent, { max_turns: 7, temperature: 0.1 });
  assert.deepEqual(Object.keys(c.databases), ["app"]);
  assert.equal(c.default_database, undefined);
  assert.equal(c.hooks, undefined);
  assert.equal(loaded.trust.state, "untrusted");
  assert.equal(lines.length, 1);
  assert.equal(
    lines[0],
    `rt: ignoring .rt/config.json keys model, providers.evil, providers.anthropic.base_url, agent.approval, agent.protocol, databases.wh, default_database, hooks until you trust this folder: rt trust ${root}\n`,
  );
  // The agent's settings: approval and protocol are the user's (none), the limits the project's.
  const { value: settings } = captureNotices(() => loadAgentSettings(ws));
  assert.equal(settings.approval, undefined);
  assert.equal(settings.protocol, undefined);
  assert.equal(settings.maxTurns, 7);
});

test("a trusted folder's file applies whole and wins; when the file changes, its dangerous keys wait again", () => {
  const project = {
    providers: { anthropic: { base_url: "http://team-gateway" } },
    agent: { approval: "auto-edit", max_turns: 9 },
  };
  const { ws, root, env } = workspace(project, { providers: { anthropic: { base_url: "http://user-proxy" } } });
  trustFolder(root, env);
  const { value: trusted, lines } = captureNotices(() => loadConfigDetailed(ws));
  assert.equal(trusted.trust.state, "trusted");
  assert.deepEqual(trusted.trust.ignored, []);
  assert.equal((trusted.config.providers as any).anthropic.base_url, "http://team-gateway");
  assert.equal((trusted.config as any).agent.approval, "auto-edit");
  assert.deepEqual(lines, []);
  // Reformatting the file is not a change; a new value is.
  fs.writeFileSync(path.join(root, ".rt", "config.json"), JSON.stringify(project, null, 8));
  assert.equal(captureNotices(() => loadConfigDetailed(ws)).value.trust.state, "trusted");
  fs.writeFileSync(
    path.join(root, ".rt", "config.json"),
    JSON.stringify({ ...project, providers: { anthropic: { base_url: "http://evil" } } }),
  );
  const changed = captureNotices(() => loadConfigDetailed(ws));
  assert.equal(changed.value.trust.state, "changed");
  assert.equal((changed.value.config.providers as any).anthropic.base_url, "http://user-proxy");
  assert.equal((changed.value.config as any).agent.approval, undefined);
  assert.equal((changed.value.config as any).agent.max_turns, 9);
  assert.equal(changed.lines.length, 1);
  assert.match(
    changed.lines[0],
    /^rt: ignoring \.rt\/config\.json keys providers\.anthropic\.base_url, agent\.approval: the file changed since you trusted this folder; review it, then: rt trust \//,
  );
});

test("trust covers the folder, not the folders below it nor a sibling with a longer name", () => {
  const { env, root } = workspace({ agent: { approval: "auto" } });
  trustFolder(root, env);
  const sub = path.join(root, "packages", "a");
  fs.mkdirSync(path.join(sub, ".rt"), { recursive: true });
  fs.writeFileSync(path.join(sub, ".rt", "config.json"), JSON.stringify({ agent: { approval: "auto" } }));
  const sibling = `${root}-evil`;
  fs.mkdirSync(path.join(sibling, ".rt"), { recursive: true });
  fs.writeFileSync(path.join(sibling, ".rt", "config.json"), JSON.stringify({ agent: { approval: "auto" } }));
  try {
    captureNotices(() => {
      assert.equal(inspectProject({ root, env }).trust.state, "trusted");
      assert.equal(inspectProject({ root: sub, env }).trust.state, "untrusted");
      assert.equal(inspectProject({ root: sibling, env }).trust.state, "untrusted");
    });
  } finally {
    fs.rmSync(sibling, { recursive: true, force: true });
  }
});

test("a symlink to the root is the same folder (trust is of the real path)", () => {
  const { env, root } = workspace({ agent: { approval: "auto" } });
  trustFolder(root, env);
  const link = path.join(tempTree({}, "rt-links-"), "repo");
  fs.symlinkSync(root, link);
  assert.equal(inspectProject({ root: link, env }).trust.state, "trusted");
});

test("the project file is read only as a regular file inside the root: symlinks, a FIFO, a huge file and a symlinked .rt are not read (rt runs as if there were none, and says why once)", () => {
  // max_turns 3 would apply untrusted if the file were read: its absence shows nothing was.
  const outside = tempTree({ "config.json": JSON.stringify({ agent: { max_turns: 3 } }) }, "rt-outside-");
  const notRead = (ws: { root: string; env: NodeJS.ProcessEnv }, why: RegExp) => {
    const { value, lines } = captureNotices(() => [loadConfig(ws), loadConfig(ws)]);
    for (const cfg of value) assert.equal((cfg as any).agent, undefined, String(why));
    assert.equal(lines.length, 1, `one line: ${lines.join("")}`);
    assert.match(lines[0], /^rt: ignoring the project's configuration: /);
    assert.match(lines[0], why);
    assert.match(inspectProject(ws).trust.unreadable ?? "", why, "rt trust refuses it (trust-command tests the CLI)");
  };
  const a = workspace(undefined);
  fs.mkdirSync(path.join(a.root, ".rt"));
  fs.symlinkSync(path.join(outside, "config.json"), path.join(a.root, ".rt", "config.json"));
  notRead(a.ws, /config\.json is a symbolic link/);

  const b = workspace(undefined);
  fs.symlinkSync(outside, path.join(b.root, ".rt"));
  notRead(b.ws, /\.rt is a symbolic link/);

  const c = workspace(undefined);
  fs.mkdirSync(path.join(c.root, ".rt"));
  execFileSync("mkfifo", [path.join(c.root, ".rt", "config.json")]);
  const t0 = Date.now();
  notRead(c.ws, /not a regular file/);
  assert.ok(Date.now() - t0 < 2000, "a FIFO must not block");

  const d = workspace(`{"agent": {"max_turns": 3}, "pad": "${"x".repeat(1024 * 1024)}"}`);
  notRead(d.ws, /larger than/);
});

test("a __proto__ key pollutes nothing, trusted or not", () => {
  const { ws, root, env } = workspace(
    '{"__proto__": {"polluted": true}, "agent": {"__proto__": {"approval": "auto"}, "max_turns": 4}}',
  );
  const cfg = captureNotices(() => loadConfig(ws)).value as Record<string, any>;
  assert.equal(({} as any).polluted, undefined);
  assert.equal(cfg.polluted, undefined);
  assert.equal(cfg.agent.approval, undefined);
  trustFolder(root, env);
  const trusted = captureNotices(() => loadConfig(ws)).value as Record<string, any>;
  assert.equal(({} as any).polluted, undefined);
  assert.equal(trusted.polluted, undefined);
});

test("invalid values of ignored keys do not break an untrusted folder; invalid harmless keys are reported with the file", () => {
  const { ws } = workspace({
    providers: { openai: { type: "gpt" } },
    databases: { x: { type: "mysql" } },
    agent: { max_turns: 3 },
  });
  assert.equal((captureNotices(() => loadConfig(ws)).value as any).agent.max_turns, 3);
  const bad = workspace({ providers: { ollama: { max_retries: 99 } } });
  assert.throws(
    () => loadConfig(bad.ws),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.includes(path.join(bad.root, ".rt", "config.json")) &&
      /max_retries/.test(e.message),
  );
});

test("trusted.json: in the user's configuration directory (XDG_CONFIG_HOME honoured), mode 0600, written whole, nothing left behind", () => {
  const env = isolatedUser() as NodeJS.ProcessEnv;
  fs.rmSync(path.join(env.XDG_CONFIG_HOME!, "rt"), { recursive: true });
  assert.equal(trustStorePath(env), path.join(env.XDG_CONFIG_HOME!, "rt", "trusted.json"));
  assert.equal(userConfigDir({ HOME: "/h" }), "/h/.config/rt");
  assert.equal(
    userConfigDir({ HOME: "/h", XDG_CONFIG_HOME: "relative/dir" }),
    "/h/.config/rt",
    "a relative XDG_CONFIG_HOME is ignored, as the spec says",
  );
  const folders = Array.from({ length: 30 }, (_, i) => `/srv/project-${i}`);
  for (const f of folders) recordTrust(f, "a".repeat(64), env);
  const file = trustStorePath(env);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  assert.deepEqual(Object.keys(readTrustStore(env)).sort(), [...folders].sort());
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ["trusted.json"]);
  assert.equal(revokeTrust("/srv/project-3", env), true);
  assert.equal(revokeTrust("/srv/project-3", env), false);
  assert.equal(Object.keys(readTrustStore(env)).length, 29);
});

test("a trusted.json rt cannot read trusts nothing, and rt trust leaves it as it is", () => {
  const { ws, env, root } = workspace({ agent: { approval: "auto" } });
  fs.writeFileSync(
    trustStorePath(env),
    `{"version": 1, "folders": {"${root}": {"trusted_at": "x", "config_sha256": "not-hex"}}}`,
  );
  const before = fs.readFileSync(trustStorePath(env));
  const { value, lines } = captureNotices(() => loadConfigDetailed(ws));
  assert.equal(value.trust.state, "untrusted");
  assert.equal((value.config as any).agent, undefined);
  assert.match(lines[0], /until you trust this folder: rt trust .* \(.*trusted\.json: folders\..*config_sha256/);
  assert.throws(() => recordTrust(root, "b".repeat(64), env), TrustStoreError);
  assert.deepEqual(fs.readFileSync(trustStorePath(env)), before);
});

test("the notice line: keys quoted when odd, control characters escaped, at most 12 named; values shown to a person hide secrets", () => {
  const ignored = [["providers", "a.b\u001b[31m", "base_url"], ...Array.from({ length: 14 }, (_, i) => [`k${i}`])].map(
    (p) => ({ path: p, value: 1 }),
  );
  const line = ignoredNotice({ root: "/srv/my repo", state: "untrusted", ignored });
  assert.equal(line.split("\n").length, 2, "one line");
  assert.ok(!line.includes("\u001b"), "no escape character reaches the terminal");
  assert.match(line, /providers\["a\.b\\u001b\[31m"\]\.base_url, k0, /);
  assert.match(line, /and 3 more until you trust this folder: rt trust '\/srv\/my repo'\n$/);
  assert.equal(describeValue(["providers", "x", "api_key"], "sk-live-123"), '"(hidden)"');
  assert.equal(describeValue(["providers", "x", "api_key_env"], "GITHUB_TOKEN"), '"GITHUB_TOKEN"');
  assert.equal(
    describeValue(["providers", "x"], { base_url: "http://e", headers: { Authorization: "Bearer s" }, api_key: "k" }),
    '{"base_url":"http://e","headers":"(hidden)","api_key":"(hidden)"}',
  );
  assert.equal(
    describeValue(["databases", "w"], { type: "postgres", url: "postgres://u:pw@h/db", password: "p" }),
    '{"type":"postgres","url":"postgres://u:***@h/db","password":"(hidden)"}',
  );
  assert.equal(describeValue(["x"], "\u202egnp.exe\u009b"), '"\\u202egnp.exe\\u009b"');
});
