// A tool's arguments checked without zod, for the plain shapes a command line
// or a model sends most (Tool.plainArgs): every key one of the tool's canonical
// arguments, every value of its type and range. It accepts only what the tool's
// schema accepts and gives what the schema gives (the same keys, in the
// schema's order); anything else (an alias, an undefined value, a wrong type)
// it leaves to the schema, which says what is wrong.
// test/tools/plain-args.test.ts holds each tool's check to its schema.

/** One argument's check. */
export type Rule = (value: unknown) => boolean;

export const text: Rule = (v) => typeof v === "string";
export const nonEmptyText: Rule = (v) => typeof v === "string" && v.length > 0;
export const flag: Rule = (v) => typeof v === "boolean";

/** zod's z.number().int().min(min).max(max): a safe integer in the range. */
export function whole(min: number, max = Number.MAX_SAFE_INTEGER): Rule {
  return (v) => typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
}

export function oneOf(...values: readonly string[]): Rule {
  return (v) => typeof v === "string" && values.includes(v);
}

/** An argument's rule, and whether the schema requires it. */
export type ArgRule = readonly [Rule, "required" | "optional"];

/**
 * The check for a tool whose schema is a strict object of these arguments,
 * listed in the schema's order.
 */
export function plainArgs<T>(rules: Readonly<Record<string, ArgRule>>): (args: unknown) => T | undefined {
  const names = Object.keys(rules);
  return (args) => {
    if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
    const proto = Object.getPrototypeOf(args);
    if (proto !== Object.prototype && proto !== null) return undefined;
    const given = args as Record<string, unknown>;
    for (const key of Object.keys(given)) if (!Object.hasOwn(rules, key)) return undefined;
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const [rule, presence] = rules[name];
      if (!Object.hasOwn(given, name)) {
        if (presence === "required") return undefined;
        continue;
      }
      const value = given[name];
      if (!rule(value)) return undefined;
      out[name] = value;
    }
    return out as T;
  };
}
