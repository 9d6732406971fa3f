// The full-screen UI's own section of rt's configuration (`"tui": {...}` in
// ~/.config/rt/config.json, or a trusted project's .rt/config.json):
//
//   queued_prompts   what Enter does with a message typed while a turn runs:
//                    "next_tool_call" (the default) gives it to the model at the
//                    turn's next tool-call boundary, after the tool results and
//                    before the next model request, as Claude Code and Codex do;
//                    "after_turn" keeps it until the turn ends and sends it then.
//                    Tab sends a message the other way.
import type { Workspace } from "../../workspace/workspace.js";
import { loadConfig } from "../../base/config.js";
import { isPlainObject } from "../../base/configTrust.js";
import { SetupError } from "../resolveModel.js";

/** When a message typed during a running turn reaches the model. */
export type QueueWhen = "next_tool_call" | "after_turn";

export const QUEUE_WHEN: readonly QueueWhen[] = ["next_tool_call", "after_turn"];

export interface TuiSettings {
  /** What Enter does during a turn (Tab does the other). */
  queuedPrompts: QueueWhen;
}

export const DEFAULT_TUI_SETTINGS: TuiSettings = { queuedPrompts: "next_tool_call" };

/** The `tui` section of a configuration object, checked; SetupError naming the key and what it takes. */
export function tuiSettingsOf(config: Record<string, unknown>): TuiSettings {
  const section = config.tui;
  if (section === undefined) return { ...DEFAULT_TUI_SETTINGS };
  if (!isPlainObject(section))
    throw new SetupError(
      `configuration: tui must be an object ({"queued_prompts": ...}), not ${JSON.stringify(section)}`,
    );
  const v = section.queued_prompts;
  if (v === undefined) return { ...DEFAULT_TUI_SETTINGS };
  if (typeof v !== "string" || !(QUEUE_WHEN as readonly string[]).includes(v))
    throw new SetupError(
      `configuration: tui.queued_prompts must be "next_tool_call" (a message typed during a turn reaches the model ` +
        `at its next tool call) or "after_turn" (it is sent when the turn ends), not ${JSON.stringify(v)}`,
    );
  return { queuedPrompts: v as QueueWhen };
}

/** The `tui` section of the merged configuration of `ws`. */
export function loadTuiSettings(ws: Workspace): TuiSettings {
  return tuiSettingsOf(loadConfig(ws) as Record<string, unknown>);
}
