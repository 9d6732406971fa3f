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
import { loadConfig, type RtConfig } from "../../base/config.js";

/** When a message typed during a running turn reaches the model. */
export type QueueWhen = NonNullable<NonNullable<RtConfig["tui"]>["queued_prompts"]>;

export interface TuiSettings {
  /** What Enter does during a turn (Tab does the other). */
  queuedPrompts: QueueWhen;
}

export const DEFAULT_TUI_SETTINGS: TuiSettings = { queuedPrompts: "next_tool_call" };

/** The `tui` section of a checked configuration (the configuration's schema refuses a wrong value, naming it). */
export function tuiSettingsOf(config: RtConfig): TuiSettings {
  return { queuedPrompts: config.tui?.queued_prompts ?? DEFAULT_TUI_SETTINGS.queuedPrompts };
}

/** The `tui` section of the merged configuration of `ws`. */
export function loadTuiSettings(ws: Workspace): TuiSettings {
  return tuiSettingsOf(loadConfig(ws));
}
