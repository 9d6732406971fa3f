// The grammar that constrains a local model's turn to one of: an answer, or one call of
// one offered tool whose arguments follow that tool's JSON schema. Written here (GBNF,
// llama.cpp's grammar language) rather than with node-llama-cpp's JSON-schema grammar,
// which makes every property required and lets numbers take exponents of any length.
//
//   {"answer": "..."}                          (absent when a tool call is required)
//   {"tool": "read", "arguments": {...}}       one alternative per offered tool
//
// Optional properties may be left out; integers and numbers have no exponent and at most
// LOCAL_GRAMMAR_MAX_DIGITS digits; `minimum`/`maximum`, `minLength`/`maxLength`,
// `minItems`/`maxItems`, `enum`, `const`, `anyOf`/`oneOf` and type lists are followed.
// What a grammar cannot say (a pattern, a format, a number's bounds exactly) is checked
// after generation by checkToolCall with the tool's own schema.
import { Ajv, type ValidateFunction } from "ajv";
import { LOCAL_GRAMMAR_MAX_DIGITS } from "../../base/limits.js";
import type { ToolChoice, ToolSpec } from "./types.js";

type Schema = Record<string, unknown>;

export type { ToolChoice };

export const TOOL_CHOICES: readonly ToolChoice[] = ["auto", "required", "none"];

/** A GBNF string literal for `text`. */
function lit(text: string): string {
  return JSON.stringify(text).replace(/[\x7F]/g, "\\x7F");
}

/** A GBNF literal matching the JSON encoding of `value`. */
function jsonLit(value: unknown): string {
  return lit(JSON.stringify(value));
}

class GrammarBuilder {
  private rules = new Map<string, string>();
  private counter = 0;

  /** `maxString`: a cap on every string without a smaller maxLength (undefined: none). */
  constructor(private readonly maxString?: number) {
    this.rules.set("ws", "[ ]?");
    this.rules.set("char", '[^"\\\\\\x7F\\x00-\\x1F] | "\\\\" ["\\\\/bfnrt] | "\\\\u" [0-9a-fA-F]{4}');
    this.rules.set("string", '"\\"" char* "\\""');
    this.rules.set("boolean", '"true" | "false"');
    this.rules.set("null", '"null"');
    const d = LOCAL_GRAMMAR_MAX_DIGITS;
    this.rules.set("integer", `"-"? ("0" | [1-9] [0-9]{0,${d - 1}})`);
    this.rules.set("number", `"-"? ("0" | [1-9] [0-9]{0,${d - 1}}) ("." [0-9]{1,${d}})?`);
    this.rules.set("value", "object | array | string | number | boolean | null");
    this.rules.set("object", '"{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}"');
    this.rules.set("array", '"[" ws ( value ( ws "," ws value )* )? ws "]"');
  }

  add(body: string, hint = "r"): string {
    const name = `${hint}${this.counter++}`;
    this.rules.set(name, body);
    return name;
  }

  /** The rule (or inline expression) for a schema. */
  schema(s: unknown): string {
    if (s === true || s === undefined || s === null || typeof s !== "object") return "value";
    const schema = s as Schema;
    if ("const" in schema) return jsonLit(schema.const);
    if (Array.isArray(schema.enum)) return `( ${schema.enum.map(jsonLit).join(" | ")} )`;
    const alts = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
    if (Array.isArray(alts)) return this.add(alts.map((a) => this.schema(a)).join(" | "), "alt");
    const type = schema.type;
    if (Array.isArray(type)) return this.add(type.map((t) => this.schema({ ...schema, type: t })).join(" | "), "types");
    switch (type) {
      case "string":
        return this.stringRule(schema);
      case "integer":
        return this.numberRule(schema, true);
      case "number":
        return this.numberRule(schema, false);
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array":
        return this.arrayRule(schema);
      case "object":
        return this.objectRule(schema);
      default:
        return schema.properties ? this.objectRule(schema) : "value";
    }
  }

  private stringRule(s: Schema): string {
    const min = typeof s.minLength === "number" ? s.minLength : 0;
    const own = typeof s.maxLength === "number" ? s.maxLength : undefined;
    const max = this.maxString === undefined ? own : Math.min(own ?? Infinity, Math.max(min, this.maxString));
    if (min === 0 && max === undefined) return "string";
    return this.add(`"\\"" char{${min},${max ?? ""}} "\\""`, "str");
  }

  private numberRule(s: Schema, integer: boolean): string {
    const min =
      typeof s.minimum === "number"
        ? s.minimum
        : typeof s.exclusiveMinimum === "number"
          ? s.exclusiveMinimum
          : undefined;
    const max =
      typeof s.maximum === "number"
        ? s.maximum
        : typeof s.exclusiveMaximum === "number"
          ? s.exclusiveMaximum
          : undefined;
    if (min === undefined && max === undefined) return integer ? "integer" : "number";
    // Digits as many as the larger bound has: what is left out of range is refused by checkToolCall.
    const bound = Math.max(Math.abs(Math.trunc(min ?? 0)), Math.abs(Math.trunc(max ?? 0)));
    const digits = Math.min(LOCAL_GRAMMAR_MAX_DIGITS, Math.max(1, String(bound).length));
    const sign = min !== undefined && min >= 0 ? "" : '"-"? ';
    const frac = integer ? "" : ` ("." [0-9]{1,${LOCAL_GRAMMAR_MAX_DIGITS}})?`;
    return this.add(`${sign}("0" | [1-9] [0-9]{0,${digits - 1}})${frac}`, integer ? "int" : "num");
  }

  private arrayRule(s: Schema): string {
    const item = this.schema(s.items);
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    const max = typeof s.maxItems === "number" ? s.maxItems : undefined;
    const more = `( ws "," ws ${item} )`;
    let body: string;
    if (max === 0) body = '"[" ws "]"';
    else if (min === 0) body = `"[" ws ( ${item} ${more}{0,${max === undefined ? "" : max - 1}} )? ws "]"`;
    else body = `"[" ws ${item} ${more}{${min - 1},${max === undefined ? "" : max - 1}} ws "]"`;
    return this.add(body, "arr");
  }

  private objectRule(s: Schema): string {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const keys = Object.keys(props);
    if (keys.length === 0) return s.additionalProperties === false ? this.add('"{" ws "}"', "obj") : "object";
    const kv = (k: string) => `${lit(JSON.stringify(k))} ws ":" ws ${this.schema(props[k])}`;
    const req = keys.filter((k) => required.has(k));
    const opt = keys.filter((k) => !required.has(k));
    // Optional properties in order, each one present or not: tail(i) is ("," kv_i)? tail(i+1).
    const tails: string[] = [];
    for (let i = opt.length - 1; i >= 0; i--) {
      const next = tails[0] ? ` ${tails[0]}` : "";
      tails.unshift(this.add(`( ws "," ws ${kv(opt[i])} )?${next}`, "opt"));
    }
    let inner: string;
    if (req.length > 0) inner = req.map(kv).join(' ws "," ws ') + (tails[0] ? ` ${tails[0]}` : "");
    else inner = `( ${opt.map((k, i) => `${kv(k)}${tails[i + 1] ? ` ${tails[i + 1]}` : ""}`).join(" | ")} )?`;
    return this.add(`"{" ws ${inner} ws "}"`, "obj");
  }

  text(root: string): string {
    return [`root ::= ${root}`, ...[...this.rules].map(([n, b]) => `${n} ::= ${b}`)].join("\n");
  }
}

/**
 * The GBNF grammar for one turn: an answer (unless `choice` is "required") or one call of one
 * of `tools`. `maxStringChars` caps the strings of a call's arguments (local.max_string_chars).
 */
export function turnGrammar(tools: ToolSpec[], choice: ToolChoice, maxStringChars?: number): string {
  const g = new GrammarBuilder(maxStringChars);
  const alts: string[] = [];
  if (choice !== "required" || tools.length === 0) alts.push(`"{" ws ${lit('"answer"')} ws ":" ws string ws "}"`);
  if (choice !== "none") {
    for (const t of tools) {
      const args = g.schema(t.parameters);
      alts.push(
        `"{" ws ${lit('"tool"')} ws ":" ws ${jsonLit(t.name)} ws "," ws ${lit('"arguments"')} ws ":" ws ${args} ws "}"`,
      );
    }
  }
  return g.text(alts.map((a) => `( ${a} )`).join(" | "));
}

/** What a constrained turn produced. */
export type TurnOutput =
  | { kind: "answer"; text: string }
  | { kind: "call"; name: string; arguments: Record<string, unknown> };

const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new WeakMap<object, ValidateFunction>();

function validatorFor(spec: ToolSpec): ValidateFunction {
  let v = validators.get(spec.parameters);
  if (!v) {
    const { $schema: _ignored, ...schema } = spec.parameters;
    v = ajv.compile(schema);
    validators.set(spec.parameters, v);
  }
  return v;
}

/**
 * Reads the JSON a constrained turn produced and checks a call's arguments against the
 * tool's schema (the grammar cannot express every keyword). Throws an Error naming what is wrong.
 */
export function parseTurnOutput(text: string, tools: ToolSpec[]): TurnOutput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`the model's output is not complete JSON (${(e as Error).message}): ${text.slice(0, 200)}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new Error(`the model's output is not a JSON object: ${text.slice(0, 200)}`);
  const o = value as Record<string, unknown>;
  if (typeof o.answer === "string") return { kind: "answer", text: o.answer };
  const spec = tools.find((t) => t.name === o.tool);
  if (!spec) throw new Error(`the model called an unknown tool ${JSON.stringify(o.tool)}`);
  const args = (o.arguments ?? {}) as Record<string, unknown>;
  const validate = validatorFor(spec);
  if (!validate(args)) {
    const why = (validate.errors ?? []).map((e) => `${e.instancePath || "arguments"} ${e.message}`).join("; ");
    throw new Error(`the model's call of ${spec.name} does not follow its schema: ${why}`);
  }
  return { kind: "call", name: spec.name, arguments: args };
}
