import { allTools, jsonSchemaOf } from "../../tools/registry.js";
import { switchedOff } from "../../tools/policy.js";
import type { Workspace } from "../../workspace/workspace.js";

/** `rt tools`: every registered tool the kill switch leaves on (RT_ENABLE_SWE=0), as text for people or JSON for programs. */
export function listTools(workspace: Workspace, json: boolean): string {
  const tools = allTools().filter((t) => switchedOff(workspace, t) === undefined);
  if (json) {
    const list = tools.map((t) => ({
      name: t.name,
      aliases: t.aliases,
      readOnly: t.readOnly,
      description: t.description,
      inputSchema: jsonSchemaOf(t),
    }));
    return `${JSON.stringify(list, null, 2)}\n`;
  }
  return `${tools
    .map((t) => {
      const aliases = t.aliases.length ? ` (also ${t.aliases.join(", ")})` : "";
      const first = t.description.split("\n")[0];
      return `${t.name}${aliases}${t.readOnly ? "" : " [writes]"}\n    ${first}`;
    })
    .join("\n")}\n`;
}
