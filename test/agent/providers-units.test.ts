// The pure pieces of the provider layer: error classification, Retry-After,
// backoff, the table of known context windows.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { classifyError, isToolsUnsupportedMessage, retryAfterMs } from "../../src/agent/providers/errors.ts";
import { DEFAULT_RETRY, retryDelay } from "../../src/agent/providers/retry.ts";
import { knownContextWindow } from "../../src/agent/providers/contextWindow.ts";
import { ProviderError } from "../../src/agent/providers/types.ts";
import { toAnthropicMessages } from "../../src/agent/providers/anthropicMessages.ts";

const ctx = { target: "X at http://h/v1", model: "m", withTools: true };

describe("provider errors", () => {
  test("Retry-After: milliseconds, seconds, an HTTP date, or nothing", () => {
    assert.equal(retryAfterMs(new Headers({ "retry-after-ms": "250" })), 250);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "2" })), 2000);
    const now = Date.parse("2025-01-01T00:00:00Z");
    assert.equal(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now), 30_000);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "soon" })), undefined);
    assert.equal(retryAfterMs(new Headers()), undefined);
  });

  test("the ways servers say they cannot call tools", () => {
    for (const m of [
      "registry.ollama.ai/library/gemma2:2b does not support tools",
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      "tools param requires --jinja flag",
      'No endpoints found that support tool use. Try disabling "read".',
      "This model does not support function calling",
    ]) {
      assert.ok(isToolsUnsupportedMessage(m), m);
    }
    assert.equal(isToolsUnsupportedMessage("context length exceeded"), false);
  });

  test("OpenRouter's 404 for tool use is tools_unsupported, not model_not_found", () => {
    const e = classifyError({ status: 404, error: { message: "No endpoints found that support tool use." } }, ctx);
    assert.equal(e.kind, "tools_unsupported");
  });

  test("a 404 that does not name a model points at the base URL", () => {
    const e = classifyError({ status: 404, error: "404 page not found" }, ctx);
    assert.equal(e.kind, "bad_request");
    assert.match(e.message, /is the base URL right\?/);
  });

  test("HTTP statuses map to kinds", () => {
    const kind = (status: number) =>
      classifyError({ status, error: { message: "m" } }, { ...ctx, withTools: false }).kind;
    assert.equal(kind(401), "auth");
    assert.equal(kind(403), "auth");
    assert.equal(kind(429), "rate_limit");
    assert.equal(kind(400), "bad_request");
    assert.equal(kind(408), "server");
    assert.equal(kind(500), "server");
    assert.equal(kind(529), "server");
  });

  test("a connection that was never made is unreachable; one that broke is stream_broken", () => {
    const refused = Object.assign(new TypeError("fetch failed"), {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
    });
    assert.equal(classifyError(refused, ctx).kind, "unreachable");
    const cut = Object.assign(new TypeError("terminated"), {
      cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
    });
    assert.equal(classifyError(cut, ctx).kind, "stream_broken");
  });
});

describe("retry delays", () => {
  const opts = { ...DEFAULT_RETRY, maxRetries: 4, baseDelayMs: 100, maxDelayMs: 350, maxRetryAfterMs: 1000 };
  test("exponential, capped, bounded, and only for transient kinds", () => {
    const server = new ProviderError("x", "server", 500);
    assert.deepEqual(
      [0, 1, 2, 3].map((n) => retryDelay(server, n, opts)),
      [100, 200, 350, 350],
    );
    assert.equal(retryDelay(server, 4, opts), undefined);
    assert.equal(retryDelay(new ProviderError("x", "auth", 401), 0, opts), undefined);
    assert.equal(retryDelay(new ProviderError("x", "tools_unsupported", 400), 0, opts), undefined);
  });
  test("Retry-After wins when it is within the limit", () => {
    assert.equal(retryDelay(new ProviderError("x", "rate_limit", 429, 700), 0, opts), 700);
    assert.equal(retryDelay(new ProviderError("x", "rate_limit", 429, 5000), 0, opts), undefined);
  });
});

describe("known context windows", () => {
  test("the longest matching prefix wins; a vendor prefix is ignored", () => {
    assert.equal(knownContextWindow("gpt-4"), 8_192);
    assert.equal(knownContextWindow("gpt-4o-mini"), 128_000);
    assert.equal(knownContextWindow("gpt-4.1-nano"), 1_047_576);
    assert.equal(knownContextWindow("openai/gpt-4o"), 128_000);
    assert.equal(knownContextWindow("claude-sonnet-4-5"), 200_000);
    assert.equal(knownContextWindow("qwen2.5-coder:7b"), undefined);
  });
});

describe("Anthropic message shape", () => {
  test("a later system message stays in place as user text; a history opening with the assistant gets a user turn first", () => {
    const r = toAnthropicMessages([
      { role: "system", content: "top" },
      { role: "assistant", content: "earlier answer" },
      { role: "system", content: "summary of the earlier conversation" },
      { role: "user", content: "" },
    ]);
    assert.equal(r.system, "top");
    assert.deepEqual(r.messages, [
      { role: "user", content: [{ type: "text", text: "(continued)" }] },
      { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
      {
        role: "user",
        content: [
          { type: "text", text: "<system>\nsummary of the earlier conversation\n</system>" },
          { type: "text", text: "(empty)" },
        ],
      },
    ]);
  });
});
