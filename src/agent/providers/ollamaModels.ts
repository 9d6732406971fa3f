// Ollama's list of pulled models, asked by both ways rt talks to Ollama (the
// native chat API in ollama.ts and the OpenAI-compatible fallback).
import { connectionFailure } from "./errors.js";
import { ProviderError } from "./types.js";

/** Ollama's pulled models (GET /api/tags), most recently pulled first as Ollama lists them. */
export async function ollamaModels(
  root: string,
  timeoutMs: number,
  signal?: AbortSignal,
  headers?: Record<string, string>,
): Promise<string[]> {
  // (AbortSignal.any would do, but only from Node 20.3.)
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  let res: Response;
  try {
    res = await fetch(`${root}/api/tags`, { signal: controller.signal, ...(headers ? { headers } : {}) });
  } catch (err) {
    if (controller.signal.aborted && !signal?.aborted)
      throw new ProviderError(`Ollama at ${root} did not answer within ${timeoutMs} ms`, "timeout");
    if (signal?.aborted) throw new ProviderError("the request was aborted", "aborted");
    throw connectionFailure(err, `Ollama at ${root}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  if (res.status === 401 || res.status === 403)
    throw new ProviderError(`${root}/api/tags answered ${res.status}`, "auth", res.status);
  if (!res.ok)
    throw new ProviderError(
      `${root}/api/tags answered ${res.status}: is this an Ollama server?`,
      res.status === 404 ? "bad_request" : "server",
      res.status,
    );
  const data = (await res.json()) as { models?: Array<{ name?: string; model?: string }> };
  return (data.models ?? []).map((m) => m.name ?? m.model ?? "").filter(Boolean);
}
