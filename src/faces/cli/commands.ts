// Every `rt` command, in the order rt --help lists them: each tool's, made from the tool's own file
// (toolCommands.ts), then the face's own (faceCommands.ts). Nothing here is about one tool. Loading
// this module loads every tool's module: rt --help and the tests use it, never a one-shot command
// (main.ts finds `rt open` alone).
import { FACE_COMMANDS, type CommandSpec } from "./faceCommands.js";
import { toolCommands } from "./toolCommands.js";

export {
  GLOBAL_OPTIONS,
  UsageError,
  type CommandSpec,
  type OptionSpec,
  type PathContext,
  type CallArgs,
} from "./faceCommands.js";

async function allCommands(): Promise<CommandSpec[]> {
  const all = [...(await toolCommands()), ...FACE_COMMANDS];
  const seen = new Set<string>();
  for (const c of all) {
    if (seen.has(c.name)) throw new Error(`two commands are named rt ${c.name}`);
    seen.add(c.name);
  }
  return all;
}

export const COMMANDS: readonly CommandSpec[] = await allCommands();
