import { TOOLS, jsonSchemaOf } from "../../tools/registry.js";

/** `rt tools`: every registered tool, as text for people or JSON for programs. */
export function listTools(json: boolean): string {
  if (json) {
    const list = TOOLS.map((t) => ({
      name: t.name,
      aliases: t.aliases,
      readOnly: t.readOnly,
      description: t.description,
      inputSchema: jsonSchemaOf(t),
    }));
    return `${JSON.stringify(list, null, 2)}\n`;
  }
  return `${TOOLS.map((t) => {
    const aliases = t.aliases.length ? ` (also ${t.aliases.join(", ")})` : "";
    const first = t.description.split("\n")[0];
    return `${t.name}${aliases}${t.readOnly ? "" : " [writes]"}\n    ${first}`;
  }).join("\n")}\n`;
}
