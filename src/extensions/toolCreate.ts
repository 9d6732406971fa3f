// `tool_create` (rt extending itself): the agent writes a
// custom tool's definition, its script if it needs one, and tests; rt writes
// them under .rt/tools/ through the workspace, runs the tests in the read-only
// sandbox, and registers the tool for the rest of the session only when every
// test passes. On a failure nothing is left behind (the files it wrote are
// removed) and the result says which test failed and what it printed. The
// files of a tool that passed stay for the user to keep or delete; a later
// session loads them like any project tool (trusted folders only).
// Agent-only: not in the registry every face lists (src/agent/extensionTools.ts offers it).
import * as z from "zod";
import { defineTool, fail, ok, type ToolResult } from "../tools/types.js";
import { findTool, registerTools } from "../tools/registry.js";
import { BASH_MAX_TIMEOUT_S, CUSTOM_TOOL_DEFAULT_TIMEOUT_S } from "../base/limits.js";
import { checkDefinition, customTool, formatProblems } from "./customTools.js";

const SESSION_SOURCE = "tool_create";
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const toolCreateTool = defineTool({
  name: "tool_create",
  aliases: [],
  description:
    "Add a tool to yourself: a program rt runs with the arguments as JSON on stdin (and RT_ARG_<NAME> env vars), never through a shell. Give a script (written to .rt/tools/) and at least one test; rt runs the tests in a read-only sandbox and, only if all pass, offers the tool from your next step. The files stay in .rt/tools/.",
  schema: () =>
    z
      .object({
        name: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,63}$/)
          .describe("snake_case tool name"),
        description: z.string().min(1).max(2000).describe("What it does and returns (for the model)"),
        parameters: z
          .record(z.string(), z.unknown())
          .describe('JSON Schema of the arguments ({"type": "object", ...})'),
        command: z.array(z.string().min(1)).min(1).describe('Argument vector, e.g. ["python3", ".rt/tools/x.py"]'),
        read_only: z.boolean().describe("True when it never changes anything"),
        timeout: z
          .number()
          .positive()
          .max(BASH_MAX_TIMEOUT_S)
          .optional()
          .describe(`Seconds (default ${CUSTOM_TOOL_DEFAULT_TIMEOUT_S})`),
        script: z
          .object({ file: z.string().regex(SCRIPT_NAME), content: z.string() })
          .strict()
          .optional()
          .describe("A file written to .rt/tools/FILE first"),
        tests: z
          .array(
            z
              .object({
                args: z.record(z.string(), z.unknown()),
                exit_code: z.number().int().min(0).max(255).optional(),
                output_contains: z.string().optional(),
              })
              .strict(),
          )
          .min(1)
          .describe("Sample calls: args, expected exit_code (0), output_contains"),
      })
      .strict(),
  readOnly: false,
  async handler(args, { workspace, signal }): Promise<ToolResult> {
    const existing = findTool(args.name);
    if (existing) return fail(`a tool named ${args.name} already exists; choose another name`);
    const definition = {
      name: args.name,
      description: args.description,
      parameters: args.parameters,
      command: args.command,
      read_only: args.read_only,
      ...(args.timeout !== undefined ? { timeout: args.timeout } : {}),
      tests: args.tests,
    };
    const defRel = [".rt", "tools", `${args.name}.json`];
    const text = `${JSON.stringify(definition, null, 2)}\n`;
    const checked = await checkDefinition(workspace.writer.abs(defRel), text, "session");
    if (!checked.ok)
      return fail(`the definition does not validate, nothing was written:\n${formatProblems(checked.problems)}`);
    const writer = workspace.writer;
    if (writer.lstat(defRel))
      return fail(`.rt/tools/${args.name}.json already exists; choose another name or remove it`);
    const scriptRel = args.script ? [".rt", "tools", args.script.file] : undefined;
    if (scriptRel && writer.lstat(scriptRel))
      return fail(`.rt/tools/${args.script!.file} already exists; give the script another file name`);
    if (!workspace.state.ensure()) return fail(workspace.state.problem ?? "rt's state directory .rt/ cannot be used");
    const written: string[][] = [];
    try {
      writer.mkdirs([".rt", "tools"]);
      if (scriptRel) {
        writer.createExclusive(scriptRel, args.script!.content, { mode: 0o755 });
        written.push(scriptRel);
      }
      writer.createExclusive(defRel, text, { mode: 0o644 });
      written.push(defRel);
    } catch (e) {
      for (const rel of written) writer.unlink(rel);
      return fail(`could not write the tool's files: ${(e as Error).message}`);
    }
    const { runDefinitionTests } = await import("./customRun.js");
    const outcomes = await runDefinitionTests(checked.definition, workspace, { signal });
    const failed = outcomes.filter((o) => !o.passed);
    const report = outcomes
      .map(
        (o) =>
          `test ${o.index}: ${o.passed ? "passed" : `FAILED: ${o.message}`}${o.passed ? "" : `\n  output: ${o.output.trim().slice(0, 500) || "(none)"}`}`,
      )
      .join("\n");
    if (failed.length) {
      for (const rel of written) writer.unlink(rel);
      return fail(
        `${failed.length} of ${outcomes.length} test(s) failed; the tool was not registered and its files were removed. Fix it and call tool_create again.\n${report}`,
        { tests: outcomes },
      );
    }
    const refused = registerTools([customTool(checked.definition, checked.validate)], SESSION_SOURCE);
    if (refused.length) return fail(`a tool named ${args.name} was registered meanwhile; choose another name`);
    const files = written.map((r) => r.join("/"));
    return ok(
      `${args.name} passed ${outcomes.length} test(s) in the sandbox and is available from your next step. Files: ${files.join(", ")} (the user can keep or delete them).\n${report}`,
      { tests: outcomes, files },
    );
  },
});
