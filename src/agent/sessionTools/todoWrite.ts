// todo_write (Claude Code's TodoWrite): the model keeps a
// todo list for a multi-step task. Each call sends the whole list, which
// replaces the previous one. The list lives in the loop (a subagent has its
// own), is logged as a `todos` event (so --continue restores it and rt export
// shows it), and is shown by the faces as it changes. A list left unchanged
// for a while is recalled to the model (todoReminder).
import * as z from "zod";
import { defineLoopTool } from "./loopTool.js";
import { ok, fail } from "../../tools/types.js";
import type { TodoItem } from "../events.js";
import type { LoopContext } from "../loopContext.js";
import { AGENT_TODO_REMINDER_AFTER_REQUESTS } from "../../base/limits.js";

const TODO_MAX_ITEMS = 100;
const TODO_TEXT_MAX_CHARS = 500;

export const todoWriteTool = defineLoopTool({
  name: "todo_write",
  aliases: ["TodoWrite"],
  description: `Creates and updates your todo list for the current task: send the whole list each time (it replaces the previous one). Use it for tasks of three or more steps, or when the user gives several things to do: plan the steps, mark one in_progress before starting it (exactly one at a time), and mark it completed as soon as it is done and verified (never when tests fail or the work is partial). Skip it for a single simple change. The user sees the list as it changes.
Each item: content (imperative: "Run the tests"), activeForm (present continuous, shown while in progress: "Running the tests"), status (pending, in_progress, completed).`,
  schema: () =>
    z
      .object({
        todos: z
          .array(
            z
              .object({
                content: z.string().trim().min(1, "content must say what to do").max(TODO_TEXT_MAX_CHARS),
                activeForm: z
                  .string()
                  .trim()
                  .min(1, 'activeForm must say what is being done ("Running the tests")')
                  .max(TODO_TEXT_MAX_CHARS),
                status: z.enum(["pending", "in_progress", "completed"]),
              })
              .strict(),
          )
          .max(TODO_MAX_ITEMS)
          .describe("The whole list, in order; an empty list clears it."),
      })
      .strict(),
  alone: true,
  async runInLoop(ctx, args, call) {
    const todos: TodoItem[] = args.todos.map((t) => ({
      content: t.content,
      activeForm: t.activeForm,
      status: t.status,
    }));
    const active = todos.filter((t) => t.status === "in_progress");
    if (active.length > 1) {
      return fail(
        `${active.length} items are in_progress (${active.map((t) => JSON.stringify(t.content)).join(", ")}): keep exactly one in progress at a time; the list was not changed`,
      );
    }
    ctx.todos = todos;
    ctx.requestsSinceTodos = 0;
    call.emit({ type: "todos", todos });
    if (todos.length === 0) return ok("The todo list is now empty.");
    const done = todos.filter((t) => t.status === "completed").length;
    const next = active[0] ?? todos.find((t) => t.status === "pending");
    const tail =
      done === todos.length
        ? " Everything is done."
        : next
          ? ` ${active[0] ? "In progress" : "Next"}: ${next.content}.`
          : "";
    return ok(`Todo list updated: ${done} of ${todos.length} completed.${tail} Keep it current as you work.`);
  },
});

/** The list as the model is reminded of it. */
export function formatTodos(todos: readonly TodoItem[]): string {
  return todos
    .map((t) => `${t.status === "completed" ? "[x]" : t.status === "in_progress" ? "[>]" : "[ ]"} ${t.content}`)
    .join("\n");
}

/**
 * Called once per model request: the reminder to add to it when an unfinished
 * list has not changed for AGENT_TODO_REMINDER_AFTER_REQUESTS requests (then
 * again after as many more), else undefined. Claude Code's system reminders.
 */
export function todoReminder(ctx: LoopContext): string | undefined {
  ctx.requestsSinceTodos++;
  const open = ctx.todos.some((t) => t.status !== "completed");
  if (!open || ctx.requestsSinceTodos <= AGENT_TODO_REMINDER_AFTER_REQUESTS) return undefined;
  ctx.requestsSinceTodos = 0;
  return `<system-reminder>\nYour todo list has not changed for a while. Here it is; update it with todo_write if you have made progress (mark finished items completed, the current one in_progress), and ignore this if it is still accurate:\n${formatTodos(ctx.todos)}\n</system-reminder>`;
}
