// Other names for a tool's arguments. Models trained on Claude Code and on the
// seeds call tools with their argument names (`file_path` for `path`,
// `head_limit` for `limit`...): a tool's schema accepts them too, validates each
// value as the argument it stands for, and passes the handler the canonical
// name only. The JSON schema shows the canonical names, each description saying
// which other name it accepts (`aliasNote`), so listing them costs a few words.
import * as z from "zod";

/** alias → canonical argument name. */
export type ArgAliases = Readonly<Record<string, string>>;

/** Claude Code's and the seeds' `file_path`: the editing tools take it for `path`. */
export const FILE_PATH_ALIAS = { file_path: "path" } as const;

/** The `path` argument of a tool that edits a file, accepting `file_path` too (wrap the schema in withArgAliases(FILE_PATH_ALIAS, ...)). */
export function editedPath() {
  return z.string().describe(`Relative to the root${aliasNote(FILE_PATH_ALIAS, "path")}`);
}

/** " (alias: file_path)": appended to the canonical argument's description. */
export function aliasNote(aliases: ArgAliases, canonical: string): string {
  const names = Object.keys(aliases).filter((a) => aliases[a] === canonical);
  return names.length ? ` (alias: ${names.join(", ")})` : "";
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `object`, also accepting each alias in place of its canonical argument. A
 * value under an alias is checked by the canonical argument's own schema, and
 * a problem is reported under the name the caller used. Giving both names with
 * different values is an error naming both; with the same value it is accepted.
 */
export function withArgAliases<S extends z.ZodRawShape>(aliases: ArgAliases, object: z.ZodObject<S>) {
  return z.preprocess((input: unknown, ctx) => {
    if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
    const given = input as Record<string, unknown>;
    if (!Object.keys(aliases).some((a) => Object.hasOwn(given, a))) return input;
    const out: Record<string, unknown> = { ...given };
    let bad = false;
    for (const [alias, canonical] of Object.entries(aliases)) {
      if (!Object.hasOwn(out, alias)) continue;
      const value = out[alias];
      delete out[alias];
      if (Object.hasOwn(out, canonical) && !sameValue(out[canonical], value)) {
        ctx.addIssue({
          code: "custom",
          path: [alias],
          message: `${alias} is another name for ${canonical}, and both are given with different values (${JSON.stringify(out[canonical])} and ${JSON.stringify(value)}); give only one`,
        });
        bad = true;
        continue;
      }
      const field = object.shape[canonical] as z.ZodType | undefined;
      const checked = field?.safeParse(value, { jitless: true });
      if (checked && !checked.success) {
        for (const issue of checked.error.issues)
          ctx.addIssue({
            code: "custom",
            path: [alias, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
            message: `${issue.message} (${alias} is ${canonical})`,
          });
        bad = true;
        continue;
      }
      out[canonical] = value;
    }
    return bad ? z.NEVER : out;
  }, object);
}
