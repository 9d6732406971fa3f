// Sampling parameters (temperature) and the models that refuse them. A
// configured `agent.temperature` is a preference, not a requirement: sending
// it to a model that rejects it turns every request into a 400. So it is left
// out for the models documented to refuse it, and for any other model the
// first 400 that names the parameter is answered by one retry without it (and
// the model is remembered for the rest of the process).
//
// Documented refusals:
//   OpenAI reasoning models (o1, o3, o4-mini, the gpt-5 family): "Unsupported value:
//     'temperature' does not support 0.2 with this model. Only the default (1) value is
//     supported." (param: "temperature"), also when reached through OpenRouter
//     ("openai/o3") or an Azure deployment named after the model.
//   Anthropic's Messages API from version 2026-10-21 (the version @anthropic-ai/sdk 1.x
//     sends) removed temperature, top_p and top_k: any value is a 400. The Anthropic
//     provider never sends them (anthropic.ts); Claude models from 4.7 on refuse a
//     non-default temperature through other gateways too ("`temperature` is deprecated
//     for this model").
import { rejectedSamplingParameter } from "./errors.js";
import { ProviderError, type ModelRequest, type StreamPart } from "./types.js";

const REFUSE_SAMPLING: readonly RegExp[] = [
  // OpenAI reasoning models, with or without a vendor prefix (OpenRouter) or a date suffix.
  /(^|\/)o[1-9](-[\w.-]+)?$/i,
  /(^|\/)gpt-5([.-][\w.-]*)?$/i,
  // Claude 4.7 and later, and the fifth generation.
  /(^|\/)claude-[a-z]+-4[.-]([7-9])([.-][\w.-]*)?$/i,
  /(^|\/)claude-[a-z]+-([5-9])([.-][\w.-]*)?$/i,
];

/** Whether `model` is documented to refuse a sampling temperature. */
export function refusesSampling(model: string): boolean {
  return REFUSE_SAMPLING.some((re) => re.test(model));
}

/**
 * Streams `req` through `run`, without its temperature when the model is known to
 * refuse one; when the server answers 400 naming the parameter before anything
 * of the answer arrived, tries once more without it and remembers the model in
 * `refused` (one per provider).
 */
export async function* withSamplingFallback(
  req: ModelRequest,
  refused: Set<string>,
  run: (req: ModelRequest) => AsyncIterable<StreamPart>,
): AsyncGenerator<StreamPart> {
  if (req.temperature === undefined) return yield* run(req);
  const without: ModelRequest = { ...req };
  delete without.temperature;
  if (refused.has(req.model) || refusesSampling(req.model)) return yield* run(without);
  let started = false;
  try {
    for await (const part of run(req)) {
      if (part.type !== "usage" && part.type !== "native") started = true;
      yield part;
    }
  } catch (err) {
    const rejected =
      !started &&
      err instanceof ProviderError &&
      err.kind === "bad_request" &&
      err.status === 400 &&
      err.details &&
      rejectedSamplingParameter(err.details);
    if (!rejected) throw err;
    refused.add(req.model);
    yield* run(without);
  }
}
