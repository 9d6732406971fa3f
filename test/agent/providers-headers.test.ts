// The request headers of every provider: the key where the provider's
// reference puts it (Anthropic: x-api-key, per platform.claude.com/docs/en/api/
// overview; the others: Authorization: Bearer), the configured extra headers,
// no Authorization at all without a key, and nothing the client libraries
// would pick from the environment on their own (OPENAI_ADMIN_KEY becomes a
// Bearer token in openai 6.x; *_CUSTOM_HEADERS add any header).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startLlmServer, type LlmServer } from "../llm-server.ts";
import { createOpenAICompatibleProvider } from "../../src/agent/providers/openaiCompatible.ts";
import { createAnthropicProvider } from "../../src/agent/providers/anthropic.ts";
import { createOllamaProvider } from "../../src/agent/providers/ollama.ts";
import type { Provider } from "../../src/agent/providers/types.ts";
import { drain, FAST } from "./providerHelpers.ts";

const POISON: Record<string, string> = {
  OPENAI_ADMIN_KEY: "sk-admin-leak",
  OPENAI_CUSTOM_HEADERS: "X-Leak: openai",
  OPENAI_ORG_ID: "org-leak",
  OPENAI_PROJECT_ID: "proj-leak",
  ANTHROPIC_CUSTOM_HEADERS: "X-Leak: anthropic",
  ANTHROPIC_AUTH_TOKEN: "leak-token",
  ANTHROPIC_API_KEY: "sk-ant-leak",
  OPENAI_API_KEY: "sk-leak",
};

let server: LlmServer;
const saved: Record<string, string | undefined> = {};
before(async () => {
  server = await startLlmServer({ models: [{ name: "m", contextLength: 8192 }] });
  for (const [k, v] of Object.entries(POISON)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
after(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await server.close();
});

async function headersOf(p: Provider) {
  server.reset();
  server.script({ text: "ok" });
  const r = await drain(p.stream({ model: "m", messages: [{ role: "user", content: "hi" }] }));
  assert.equal(r.error, undefined, r.error?.message);
  await p.listModels!();
  return server.requests.map((q) => ({ path: q.path, h: q.headers }));
}

function noLeak(all: Array<{ path: string; h: Record<string, unknown> }>) {
  for (const { path, h } of all)
    for (const [k, v] of Object.entries(h)) assert.doesNotMatch(`${k}: ${String(v)}`, /leak/i, `${path}: ${k}`);
}

describe("request headers, every provider", () => {
  test("OpenAI / OpenRouter / any keyed chat-completions server: Authorization: Bearer KEY, configured headers, nothing from the environment", async () => {
    const all = await headersOf(
      createOpenAICompatibleProvider({
        baseURL: server.openaiBaseUrl,
        apiKey: "sk-or-1",
        name: "openai-compatible",
        headers: { "HTTP-Referer": "https://example.org", "X-Title": "rt" },
        ...FAST,
      }),
    );
    assert.equal(all.length, 2);
    for (const { h } of all) {
      assert.equal(h.authorization, "Bearer sk-or-1");
      assert.equal(h["http-referer"], "https://example.org");
      assert.equal(h["x-title"], "rt");
      assert.equal(h["x-api-key"], undefined);
      assert.equal(h["openai-organization"], undefined);
      assert.equal(h["openai-project"], undefined);
    }
    noLeak(all);
  });

  test("a local chat-completions server without a key: no Authorization header at all", async () => {
    const all = await headersOf(
      createOpenAICompatibleProvider({ baseURL: server.openaiBaseUrl, name: "vllm", ...FAST }),
    );
    for (const { h } of all) assert.equal(h.authorization, undefined);
    noLeak(all);
  });

  test("Anthropic: x-api-key KEY and anthropic-version; no Authorization (the pinned client's Bearer is removed)", async () => {
    const all = await headersOf(
      createAnthropicProvider({
        baseURL: server.anthropicBaseUrl,
        apiKey: "sk-ant-1",
        headers: { "anthropic-beta": "x" },
        ...FAST,
      }),
    );
    for (const { h } of all) {
      assert.equal(h["x-api-key"], "sk-ant-1");
      assert.equal(h.authorization, undefined);
      assert.equal(h["anthropic-beta"], "x");
      assert.match(String(h["anthropic-version"]), /^\d{4}-\d{2}-\d{2}$/);
    }
    noLeak(all);
  });

  test("an Anthropic-compatible server without a key: neither header", async () => {
    const all = await headersOf(createAnthropicProvider({ baseURL: server.anthropicBaseUrl, ...FAST }));
    for (const { h } of all) {
      assert.equal(h["x-api-key"], undefined);
      assert.equal(h.authorization, undefined);
    }
    noLeak(all);
  });

  test("Ollama: no key, no Authorization; with a key (behind a proxy), Bearer on every request", async () => {
    const bare = await headersOf(createOllamaProvider({ baseURL: server.url, ...FAST }));
    for (const { h } of bare) assert.equal(h.authorization, undefined);
    const keyed = await headersOf(
      createOllamaProvider({ baseURL: server.url, apiKey: "ol-1", headers: { "X-Proxy": "p" }, ...FAST }),
    );
    for (const { path, h } of keyed) {
      assert.equal(h.authorization, "Bearer ol-1", path);
      assert.equal(h["x-proxy"], "p", path);
    }
    noLeak([...bare, ...keyed]);
  });
});
