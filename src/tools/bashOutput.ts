// `bash_output`: the new output of a background shell since the last call.
import * as z from "zod";
import { defineTool, ok, ToolError } from "./types.js";
import { BASH_MAX_OUTPUT_BYTES, REGEX_FILTER_BUDGET_MS } from "../base/limits.js";
import { testLines } from "../parsers/boundedRegex.js";
import { getBackground, takeOutput } from "../shell/background.js";
import { truncateHeadTail } from "../shell/capture.js";
import { formatDuration, labelledOutput, statusLine } from "../shell/format.js";

export const bashOutputTool = defineTool({
  name: "bash_output",
  aliases: ["BashOutput"],
  description: `What a background shell (bash with background: true) printed since the last bash_output, and whether it still runs (else its exit code). filter: only lines matching this regex (the others are consumed). Over ${BASH_MAX_OUTPUT_BYTES / 1024} KB per stream keeps head and tail.`,
  schema: () =>
    z
      .object({
        id: z.string().min(1).describe("The id bash returned, e.g. bash_1"),
        filter: z.string().optional().describe("Regular expression: return only the matching lines"),
      })
      .strict(),
  readOnly: false,
  destructive: false,
  enforcesReadOnly: true,
  async handler(args) {
    const shell = getBackground(args.id);
    let filter: RegExp | undefined;
    if (args.filter !== undefined) {
      try {
        filter = new RegExp(args.filter);
      } catch (e) {
        throw new ToolError(`filter is not a valid regular expression: ${(e as Error).message}`);
      }
    }
    const re = filter;
    const got = takeOutput(shell, re ? (lines) => testLines(re, lines, REGEX_FILTER_BUDGET_MS, "filter") : undefined);
    const running = shell.exit === undefined;
    const status = running
      ? `running (${formatDuration(Date.now() - shell.startedAt)} so far)`
      : statusLine(shell.exit!, undefined);
    const cut = (t: string) =>
      truncateHeadTail(t, BASH_MAX_OUTPUT_BYTES, "read the output more often to see all of it");
    const stdout = cut(got.stdout);
    const stderr = cut(got.stderr);
    const notes: string[] = [];
    if (got.dropped > 0) notes.push(`${got.dropped} older unread characters were dropped (buffer full)`);
    if (got.filteredOut > 0) notes.push(`${got.filteredOut} lines did not match the filter`);
    const body =
      got.stdout === "" && got.stderr === "" ? "(no new output)\n" : labelledOutput(stdout.text, stderr.text);
    return ok(`${shell.id}: ${status} · ${shell.command}\n${body}${notes.length ? `[${notes.join("; ")}]\n` : ""}`, {
      id: shell.id,
      running,
      exit_code: shell.exit?.exitCode ?? null,
      timed_out: shell.exit?.timedOut ?? false,
      truncated: stdout.truncated || stderr.truncated,
      stdout: stdout.text,
      stderr: stderr.text,
    });
  },
});
