// Whether a model takes images (read of an image or a PDF's pages goes to it as
// image content; a model without vision gets a text note). The configuration
// decides first (`providers.<name>.vision`: true, false, or the model names
// that take images, "*" ending a prefix); then the server where it says
// (Ollama's /api/show lists "vision" among a model's capabilities); then what
// rt knows of hosted models. Undefined: nobody can tell, and rt sends no images.
import { PROVIDER_PROBE_TIMEOUT_MS } from "../../base/limits.js";

/** `providers.<name>.vision` as configured. */
export type VisionSetting = boolean | string[];

/** What the configuration says about `model`, or undefined when it says nothing. */
export function configuredVision(setting: VisionSetting | undefined, model: string): boolean | undefined {
  if (setting === undefined) return undefined;
  if (typeof setting === "boolean") return setting;
  return setting.some((pattern) =>
    pattern.endsWith("*") ? model.startsWith(pattern.slice(0, -1)) : model === pattern,
  );
}

/**
 * Hosted models by name (an OpenRouter-style "vendor/" prefix ignored): the
 * published image inputs of OpenAI's and Anthropic's models, and Google's
 * Gemini. Longest prefix wins; the "-mini" reasoners of 2024-25 take text only.
 */
const KNOWN: Array<[prefix: string, vision: boolean]> = [
  ["gpt-4o", true],
  ["gpt-4.1", true],
  ["gpt-4.5", true],
  ["gpt-4-turbo", true],
  ["gpt-5", true],
  ["gpt-3.5", false],
  ["o1", true],
  ["o1-mini", false],
  ["o3", true],
  ["o3-mini", false],
  ["o4-mini", true],
  ["claude-3", true],
  ["claude-", true],
  ["gemini-", true],
];

export function knownVision(model: string): boolean | undefined {
  const bare = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  let best: [string, boolean] | undefined;
  for (const entry of KNOWN) if (bare.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}

/** Ollama: "vision" in the model's capabilities (POST /api/show, Ollama 0.6.4 and later); undefined when it does not say. */
export async function ollamaVision(
  root: string,
  model: string,
  headers: Record<string, string> = {},
  timeoutMs = PROVIDER_PROBE_TIMEOUT_MS,
): Promise<boolean | undefined> {
  try {
    const res = await fetch(`${root.replace(/\/+$/, "")}/api/show`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ model }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return undefined;
    const data = (await res.json()) as { capabilities?: unknown };
    return Array.isArray(data.capabilities) ? data.capabilities.includes("vision") : undefined;
  } catch {
    return undefined;
  }
}
