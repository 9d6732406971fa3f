// Tool.plainArgs checks the plain shapes of a tool's arguments without zod (so
// `rt open FILE` and `rt grep X` never load it). The invariant, with the tool's
// own zod schema as the oracle: whatever plainArgs accepts, the schema accepts,
// and parses to the same value (the same keys in the same order, each value
// the same by Object.is). Checked over generated arguments whose values come
// from each argument's JSON schema, its bounds and one past them included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TOOLS, jsonSchemaOf } from "../../src/tools/registry.ts";
import type { Tool } from "../../src/tools/types.ts";

type Prop = { type?: string; minimum?: number; maximum?: number; minLength?: number; enum?: unknown[]; anyOf?: Prop[] };

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const JUNK: unknown[] = [null, undefined, "", "1", 0, -1, 1.5, NaN, Infinity, true, [], {}, [1], { a: 1 }];

/** Values worth trying for one argument: valid ones, its bounds and one past them, and other types. */
function valuesFor(prop: Prop): unknown[] {
  const out: unknown[] = [...JUNK];
  if (prop.enum) out.push(...prop.enum, `${String(prop.enum[0])}x`, String(prop.enum[0]).toUpperCase());
  switch (prop.type) {
    case "string":
      out.push("a", "src/app.py", "src/app.py:12", "x y", "é", "-n", "a".repeat(300));
      break;
    case "boolean":
      out.push(true, false, "true", 1);
      break;
    case "integer":
    case "number": {
      const min = prop.minimum ?? -5;
      const max = prop.maximum ?? 2 ** 53 - 1;
      out.push(min - 1, min, min + 1, max - 1, max, max + 1, -0, 0, 1, 2, 50, 2 ** 53, -(2 ** 53), 3.5, String(min));
      break;
    }
  }
  return out;
}

function generate(tool: Tool, random: () => number, aliases: string[]): unknown {
  const schema = jsonSchemaOf(tool) as { properties?: Record<string, Prop>; required?: string[] };
  const props = Object.entries(schema.properties ?? {});
  const roll = random();
  if (roll < 0.02) return [null, [], "x", 1, Object.create(null)][Math.floor(random() * 5)];
  const args: Record<string, unknown> = {};
  // Keys in a random order: the parse must give the schema's order either way.
  const keys = props.map(([k]) => k).sort(() => random() - 0.5);
  for (const key of keys) {
    const required = schema.required?.includes(key) ?? false;
    if (random() < (required ? 0.9 : 0.4)) {
      const pool = random() < 0.9 ? validValues(props.find(([k]) => k === key)![1]) : valuesFor(props.find(([k]) => k === key)![1]);
      args[key] = pool[Math.floor(random() * pool.length)];
    }
  }
  if (aliases.length && random() < 0.1) args[aliases[Math.floor(random() * aliases.length)]] = "a";
  if (random() < 0.05) args.unknown_arg = 1;
  if (random() < 0.03) return Object.assign(Object.create(null), args);
  return args;
}

/** Only values of the argument's own type (so most generated calls are plain and valid). */
function validValues(prop: Prop): unknown[] {
  return valuesFor(prop).filter((v) => (prop.enum ? prop.enum.includes(v) : prop.type === "boolean" ? typeof v === "boolean" : prop.type === "string" ? typeof v === "string" : typeof v === "number" && Number.isInteger(v)));
}

/** The argument aliases a tool's description of its arguments names ("(alias: file_path)"). */
function aliasesOf(tool: Tool): string[] {
  const text = JSON.stringify(jsonSchemaOf(tool));
  return [...text.matchAll(/\(alias(?:es)?: ([\w, ]+)\)/g)].flatMap((m) => m[1].split(/,\s*/));
}

const withPlainArgs = TOOLS.filter((t) => t.plainArgs);

test("the tools a one-shot command uses check their plain arguments without zod", () => {
  assert.deepEqual(withPlainArgs.map((t) => t.name).sort(), ["find", "grep", "grep_file", "ls", "open", "read", "scroll"]);
});

for (const tool of withPlainArgs) {
  test(`${tool.name}: what plainArgs accepts, the schema accepts and parses to the same value`, () => {
    const random = rng(tool.name.length * 7919);
    const aliases = aliasesOf(tool);
    let accepted = 0;
    let schemaOnly = 0;
    const cases = 4000;
    for (let i = 0; i < cases; i++) {
      const args = generate(tool, random, aliases);
      const plain = tool.plainArgs!(args);
      const parsed = tool.schema.safeParse(args, { jitless: true });
      if (plain === undefined) {
        if (parsed.success) schemaOnly++;
        continue;
      }
      accepted++;
      const shown = JSON.stringify(args, (_k, v) => (v === undefined ? "<undefined>" : Number.isNaN(v) ? "<NaN>" : v));
      assert.ok(parsed.success, `${tool.name}: plainArgs accepted ${shown}, the schema refused it: ${parsed.success ? "" : parsed.error.message}`);
      const data = parsed.data as Record<string, unknown>;
      assert.deepEqual(Object.keys(plain as object), Object.keys(data), `${tool.name}: keys of ${shown}`);
      for (const k of Object.keys(data)) assert.ok(Object.is((plain as Record<string, unknown>)[k], data[k]), `${tool.name}: ${k} of ${shown}`);
    }
    // Not vacuous: a good share of the calls took the plain path, and the schema still decides the rest.
    assert.ok(accepted > cases / 10, `${tool.name}: plainArgs accepted only ${accepted} of ${cases}`);
    assert.ok(schemaOnly > 0 || aliases.length === 0, `${tool.name}: no call was left to the schema`);
  });
}

test("the shapes the command line sends take the plain path", () => {
  const plain = (name: string, args: unknown) => TOOLS.find((t) => t.name === name)!.plainArgs!(args);
  assert.deepEqual(plain("open", { path: "a.py:10" }), { path: "a.py:10" });
  assert.deepEqual(plain("grep", { pattern: "x", path: "src", ignore_case: true, context: 2, limit: 5, output_mode: "count" }), { pattern: "x", ignore_case: true, context: 2, limit: 5, path: "src", output_mode: "count" });
  assert.deepEqual(plain("read", { path: "a.py", offset: 3, limit: 4 }), { path: "a.py", offset: 3, limit: 4 });
  // Aliases, undefined values and anything unusual go to the schema.
  assert.equal(plain("open", { file_path: "a.py" }), undefined);
  assert.equal(plain("grep", { pattern: "x", path: undefined }), undefined);
  assert.equal(plain("grep", { pattern: "" }), undefined);
});
