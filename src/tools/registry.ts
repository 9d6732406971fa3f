// The one list of tools. Every face (CLI, `rt call`, MCP, the agent) finds
// tools here and calls them through the policy, never directly.
import { z } from "zod";
import type { Tool } from "./types.js";
import { readTool } from "./read.js";
import { openTool } from "./open.js";
import { scrollTool } from "./scroll.js";
import { findFilesTool } from "./find.js";
import { grepTool, grepFileTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { bashTool } from "./bash.js";
import { bashOutputTool } from "./bashOutput.js";
import { killShellTool } from "./killShell.js";
import { writeOutputTool } from "./writeOutput.js";
import { sqlQueryTool } from "./sqlQuery.js";
import { sqlTablesTool } from "./sqlTables.js";
import { sqlDescribeTool } from "./sqlDescribe.js";
import { editLinesTool } from "./editLines.js";
import { editRangeTool, insertAtTool } from "./editRange.js";
import { editFileTool } from "./editFile.js";
import { editTool } from "./edit.js";
import { multiEditTool } from "./multiEdit.js";
import { writeTool } from "./write.js";
import { undoTool } from "./undo.js";

export const TOOLS: readonly Tool[] = [
  readTool,
  openTool,
  scrollTool,
  findFilesTool,
  grepTool,
  grepFileTool,
  lsTool,
  editLinesTool,
  editRangeTool,
  insertAtTool,
  editTool,
  multiEditTool,
  editFileTool,
  writeTool,
  undoTool,
  sqlQueryTool,
  sqlTablesTool,
  sqlDescribeTool,
  bashTool,
  bashOutputTool,
  killShellTool,
  writeOutputTool,
] as Tool[];

const byName = new Map<string, Tool>();
for (const tool of TOOLS) {
  for (const name of [tool.name, ...tool.aliases]) {
    if (byName.has(name)) throw new Error(`tool name ${name} registered twice`);
    byName.set(name, tool);
  }
}

/** Finds a tool by its canonical name or any alias. */
export function findTool(name: string): Tool | undefined {
  return byName.get(name);
}

export function toolNames(): string[] {
  return TOOLS.map((t) => t.name);
}

/** The tool's argument schema as JSON Schema (for MCP, the agent and error messages). */
export function jsonSchemaOf(tool: Tool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
