// The one list of tools. Every face (CLI, `rt call`, MCP, the agent) finds
// tools here and calls them through the policy, never directly.
//
// Everything about a tool (name, aliases, flags, schema, handler) comes from
// its own module; the list of modules is toolModules.ts.
import type { Tool, ToolLookup } from "./types.js";
import { TOOL_MODULES, toolOf } from "./toolModules.js";

export { jsonSchemaOf, withoutSafeBounds } from "./jsonSchema.js";

/** Every tool, in the order faces list them (that of toolModules.ts). Importing the registry loads every tool's module. */
export const TOOLS: readonly Tool[] = await Promise.all(
  Object.entries(TOOL_MODULES).map(async ([name, load]) => toolOf(name, await load())),
);

const byName = new Map<string, Tool>();
for (const tool of TOOLS) {
  for (const name of [tool.name, ...tool.aliases]) {
    if (byName.has(name)) throw new Error(`tool name ${name} registered twice`);
    byName.set(name, tool);
  }
}

/** Finds a tool by its canonical name or any alias. */
export function findTool(name: string): Tool | undefined {
  return byName.get(name) ?? extraTools.get(name);
}

export function toolNames(): string[] {
  return allTools().map((t) => t.name);
}

// Tools defined outside rt's code (custom tools as data, src/extensions/):
// registered at run time by the face that loaded them for a workspace, found
// after the built-in ones and listed after them. A built-in name is never
// replaced.
const extraTools = new Map<string, Tool>();
/** Counts changes of the registered tools: a cached tool list is stale when it moved. */
let generation = 0;

/** The registry's generation (see `generation`). */
export function registryGeneration(): number {
  return generation;
}

/** Registers tools defined as data under their names; `source` names them for unregisterTools. Returns the names refused (taken). */
export function registerTools(tools: readonly Tool[], source: string): string[] {
  const refused: string[] = [];
  for (const tool of tools) {
    if (byName.has(tool.name) || extraTools.has(tool.name)) refused.push(tool.name);
    else {
      extraTools.set(tool.name, Object.assign(tool, { [EXTRA_SOURCE]: source }));
      generation++;
    }
  }
  return refused;
}

/** Removes every tool registered from `source`. */
export function unregisterTools(source: string): void {
  for (const [name, tool] of extraTools)
    if ((tool as { [EXTRA_SOURCE]?: string })[EXTRA_SOURCE] === source) {
      extraTools.delete(name);
      generation++;
    }
}

const EXTRA_SOURCE = Symbol("rt.toolSource");

/** Every tool: the built-in ones, then those registered at run time. */
export function allTools(): readonly Tool[] {
  return extraTools.size ? [...TOOLS, ...extraTools.values()] : TOOLS;
}

/** Every tool of the registry, by name or alias. */
export const REGISTRY_LOOKUP: ToolLookup = { find: findTool, names: toolNames };
