// rt as a library: the same registry and policy the CLI, `rt call`, MCP and the agent use.
export { createWorkspace, Workspace, type WorkspaceOptions, type Profile } from "./workspace/workspace.js";
export { callTool, type CallOptions } from "./tools/policy.js";
export { TOOLS, findTool, toolNames, jsonSchemaOf } from "./tools/registry.js";
export type { Tool, ToolResult, ToolContext } from "./tools/types.js";
// The tools the agent offers its model (default or lean set), as sent with each request.
export { agentToolSpecs, LEAN_TOOLS, type ToolSetChoice } from "./agent/toolSet.js";
// Model providers (the client libraries load only when a provider is first used).
export {
  resolveModel,
  resolveModelForWorkspace,
  checkReachable,
  createOpenAICompatibleProvider,
  createAnthropicProvider,
  ProviderError,
  ModelChoiceError,
} from "./agent/providers/index.js";
export type {
  Provider,
  ModelRequest,
  StreamPart,
  ChatMessage,
  ToolSpec,
  Usage,
  ResolvedModel,
  ModelFlags,
} from "./agent/providers/index.js";
