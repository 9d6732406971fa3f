// A tool's `rt` command comes from the tool's own file (its `cli` and its schema): the CLI face holds
// no entry of its own for any tool, and adding a tool (the worked example of docs/contributing.md,
// taken from the page itself) is its file plus one line in toolModules.ts, command and help included.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { COMMANDS } from "../../src/faces/cli/commands.ts";
import { FACE_COMMANDS } from "../../src/faces/cli/faceCommands.ts";
import { TOOLS } from "../../src/tools/registry.ts";
import { CLI_COMMANDS } from "../../src/tools/toolModules.ts";
import { REPO, tempTree } from "../helpers.ts";

const commandOf = (t: (typeof TOOLS)[number]) => t.cli?.command ?? t.name.replace(/_/g, "-");

test("every tool with a `cli` has its command, from its own file; the CLI face has no entry for any tool", () => {
  const withCli = TOOLS.filter((t) => t.cli);
  assert.ok(withCli.length >= 18, `${withCli.length} tools have a command`);
  for (const tool of withCli) {
    const spec = COMMANDS.find((c) => c.name === commandOf(tool));
    assert.ok(spec, `rt ${commandOf(tool)}`);
    assert.equal(spec.tool, tool, `rt ${spec.name} calls ${tool.name}`);
    assert.equal(spec.summary, tool.cli!.summary);
    // Every option is one of the schema's arguments, or a flag of the command line the tool's file declares.
    const schemaKeys = Object.keys((tool.schema as unknown as { shape?: object }).shape ?? {});
    for (const key of Object.keys(tool.cli!.options ?? {}))
      if (schemaKeys.length) assert.ok(schemaKeys.includes(key), `${tool.name}: option ${key} is an argument`);
  }
  // The commands that are not tools' are exactly the face's own, and none of them is named like a tool's.
  assert.deepEqual(
    COMMANDS.filter((c) => !c.tool).map((c) => c.name),
    FACE_COMMANDS.map((c) => c.name),
  );
  const face = ["commands.ts", "faceCommands.ts", "main.ts"].map((f) =>
    fs.readFileSync(path.join(REPO, "src/faces/cli", f), "utf8"),
  );
  for (const tool of withCli) {
    const name = commandOf(tool);
    for (const text of face) {
      assert.doesNotMatch(text, new RegExp(`name: "${name}"`), `the CLI face defines rt ${name}`);
      assert.doesNotMatch(text, new RegExp(`\\brt ${name} [A-Z\\[]`), `the CLI face writes rt ${name}'s synopsis`);
    }
  }
  // A command named otherwise than its tool is routed by CLI_COMMANDS, which agrees with the tool's file.
  for (const [name, toolName] of Object.entries(CLI_COMMANDS))
    assert.equal(commandOf(TOOLS.find((t) => t.name === toolName)!), name);
});

/** The code blocks of docs/contributing.md's "Adding a tool": the tool file, its list line, the transcript. */
function workedExample(): { file: string; line: string; transcript: string } {
  const doc = fs.readFileSync(path.join(REPO, "docs/contributing.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Adding a tool"));
  const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)];
  const ts = blocks.filter((b) => b[1] === "ts").map((b) => b[2]);
  const transcript = blocks.find((b) => b[1] === "" && b[2].startsWith("$ rt "))?.[2];
  assert.ok(ts.length >= 2 && transcript, "the section shows the tool file, its line and a transcript");
  return { file: ts[0], line: ts[1], transcript };
}

test("adding a tool is its file plus one line in toolModules.ts: the documented example, built, has its command and help", () => {
  const { file, line, transcript } = workedExample();
  const name = /name: "(\w+)"/.exec(file)![1];
  const module = /import\("\.\/(\w+)\.js"\)/.exec(line)![1];
  // A copy of the sources with exactly those two changes, built as `npm run build` builds rt.
  const copy = tempTree({}, "rt-add-tool-");
  fs.cpSync(path.join(REPO, "src"), path.join(copy, "src"), { recursive: true });
  fs.cpSync(path.join(REPO, "scripts"), path.join(copy, "scripts"), { recursive: true });
  for (const f of ["package.json", "tsconfig.json", "tsconfig.build.json"])
    fs.copyFileSync(path.join(REPO, f), path.join(copy, f));
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(copy, "node_modules"));
  fs.writeFileSync(path.join(copy, "src/tools", `${module}.ts`), file);
  const list = path.join(copy, "src/tools/toolModules.ts");
  const before = fs.readFileSync(list, "utf8");
  const after = before.replace("export const TOOL_MODULES = {\n", (m) => m + line);
  assert.notEqual(after, before);
  fs.writeFileSync(list, after);
  const build = spawnSync(process.execPath, ["scripts/build.mjs", "--no-types"], { cwd: copy, encoding: "utf8" });
  assert.equal(build.status, 0, build.stderr);

  const root = tempTree({ "small.py": Array.from({ length: 61 }, (_, i) => `x${i} = ${i}\n`).join("") });
  const rt = (args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(copy, "dist/cli.js"), ...args], {
      cwd: root,
      env: { ...process.env, RT_ROOT: root, NO_COLOR: "1" },
      encoding: "utf8",
    });
    return { code: r.status, out: r.stdout + r.stderr };
  };
  // The transcript as the page shows it: each `$ rt ...` line and what it prints (the start of it, for --help).
  const steps = transcript.split(/^\$ rt /m).filter(Boolean);
  assert.ok(steps.length >= 3);
  for (const step of steps) {
    const [command, ...output] = step.split("\n");
    const args = command.split(" ");
    const expected = output.join("\n");
    const r = rt(args);
    if (args.includes("--help")) assert.ok(r.out.startsWith(expected), `rt ${command}:\n${r.out}`);
    else assert.equal(r.out, expected, `rt ${command}`);
    assert.equal(r.code, /^Usage: /m.test(expected) && !args.includes("--help") ? 2 : 0, `rt ${command}`);
  }
  const help = rt(["--help"]);
  const cmd = name.replace(/_/g, "-");
  assert.match(help.out, new RegExp(`\\n  rt ${cmd} PATH`), "rt --help lists the new command");
  const call = rt(["call", name, "--args", '{"path": "small.py"}']);
  assert.equal(JSON.parse(call.out).success, true, call.out);
});
