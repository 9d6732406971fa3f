// The model-provider layer, for the agent and its faces:
//
//   const resolved = resolveModelForWorkspace(ws, { model, baseUrl, apiKey });   // ModelChoiceError → exit 2
//   const ready = await checkReachable(resolved);                                // !ok → print ready.message, exit 2
//   const { provider, model, label } = ready.resolved;
//   for await (const part of provider.stream({ model, messages, tools })) ...
//
// Neither client library is loaded until a provider first streams or lists models.
export * from "./types.js";
export {
  resolveModel,
  resolveModelForWorkspace,
  withModel,
  ollamaRoot,
  ModelChoiceError,
  BUILTIN_PROVIDERS,
} from "./resolve.js";
export type { ModelFlags, ResolveInput, ResolvedModel, ProviderKind } from "./resolve.js";
export { checkReachable, configureHelp } from "./reachability.js";
export type { Reachability } from "./reachability.js";
export { createOpenAICompatibleProvider } from "./openaiCompatible.js";
export type { OpenAICompatibleOptions } from "./openaiCompatible.js";
export { createAnthropicProvider } from "./anthropic.js";
export { createOllamaProvider } from "./ollama.js";
export type { OllamaOptions } from "./ollama.js";
export type { AnthropicOptions } from "./anthropic.js";
export type { ProviderOptions } from "./options.js";
export { DEFAULT_RETRY, DEFAULT_TIMEOUTS } from "./retry.js";
export type { RetryOptions, TimeoutOptions } from "./retry.js";
export { knownContextWindow } from "./contextWindow.js";
