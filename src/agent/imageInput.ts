// What the agent's model takes of images: whether it sees them
// (Provider.vision: the configuration, Ollama's capabilities, rt's table of
// hosted models), and the documented limits of its provider, which read
// fits images to. Asked once per model binding, when a tool first needs it.
import type { ImageInput } from "../tools/types.js";
import type { ImageLimits } from "../parsers/image.js";
import type { ModelBinding } from "./loopContext.js";
import {
  ANTHROPIC_IMAGE_MAX_BYTES,
  ANTHROPIC_IMAGE_MAX_EDGE,
  OLLAMA_IMAGE_MAX_BYTES,
  OLLAMA_IMAGE_MAX_EDGE,
  OPENAI_IMAGE_MAX_BYTES,
  OPENAI_IMAGE_MAX_EDGE,
} from "../base/limits.js";

/**
 * Each provider's limits. Anthropic and OpenAI document PNG, JPEG, GIF (still)
 * and WebP; Ollama decodes PNG and JPEG in every version, and an
 * OpenAI-compatible server is not known to take more, so those get PNG or JPEG.
 */
export function providerImageLimits(providerName: string): ImageLimits {
  switch (providerName) {
    case "anthropic":
      return {
        maxEdge: ANTHROPIC_IMAGE_MAX_EDGE,
        maxBytes: ANTHROPIC_IMAGE_MAX_BYTES,
        formats: ["image/png", "image/jpeg", "image/gif", "image/webp"],
      };
    case "openai":
      return {
        maxEdge: OPENAI_IMAGE_MAX_EDGE,
        maxBytes: OPENAI_IMAGE_MAX_BYTES,
        formats: ["image/png", "image/jpeg", "image/gif", "image/webp"],
      };
    case "ollama":
      return { maxEdge: OLLAMA_IMAGE_MAX_EDGE, maxBytes: OLLAMA_IMAGE_MAX_BYTES, formats: ["image/png", "image/jpeg"] };
    default:
      return { maxEdge: OPENAI_IMAGE_MAX_EDGE, maxBytes: OPENAI_IMAGE_MAX_BYTES, formats: ["image/png", "image/jpeg"] };
  }
}

const decided = new WeakMap<ModelBinding, Promise<ImageInput>>();

/** Whether `binding`'s model sees images, and within which limits; remembered for the binding. */
export function imageInputFor(binding: ModelBinding): Promise<ImageInput> {
  let p = decided.get(binding);
  if (!p) {
    p = decide(binding);
    decided.set(binding, p);
  }
  return p;
}

async function decide(binding: ModelBinding): Promise<ImageInput> {
  const configName = binding.label.slice(0, binding.label.indexOf("/"));
  const setting = `providers.${configName}.vision`;
  const vision = binding.provider.vision
    ? await binding.provider.vision(binding.model).catch(() => undefined)
    : undefined;
  if (vision === true) return { vision: true, limits: providerImageLimits(binding.provider.name) };
  if (vision === false)
    return {
      vision: false,
      reason: `the model ${binding.label} does not take images (set ${setting}: true if it does)`,
    };
  return {
    vision: false,
    reason: `rt cannot tell whether the model ${binding.label} takes images (set ${setting}: true, or a list of model names, if it does)`,
  };
}
