// Checks a notebook against the nbformat v4 JSON schema of its minor version
// (the schemas Jupyter itself validates with), with Ajv's draft-04 support.
// Loaded on first use: the schemas and Ajv cost nothing to other commands.

/** Schema errors as "path: message" lines, empty when the notebook is valid. */
export async function notebookSchemaErrors(notebook: unknown): Promise<string[]> {
  const validate = await validatorFor(minorOf(notebook));
  if (validate(notebook)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || "/"}: ${e.message ?? "invalid"}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
  );
}

function minorOf(nb: unknown): number {
  const m = nb && typeof nb === "object" ? (nb as { nbformat_minor?: unknown }).nbformat_minor : undefined;
  // Minors after 5 (none yet) are checked against 4.5, the newest schema.
  return typeof m === "number" && Number.isInteger(m) && m >= 0 ? Math.min(m, 5) : 5;
}

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string; params?: Record<string, unknown> }> | null;
};

const compiled = new Map<number, Validate>();

async function validatorFor(minor: number): Promise<Validate> {
  const have = compiled.get(minor);
  if (have) return have;
  const [{ NBFORMAT_V4_SCHEMAS }, mod] = await Promise.all([import("./nbformatSchemas.js"), import("ajv-draft-04")]);
  const m = mod as unknown as { default: unknown };
  const Ajv = ((m.default as { default?: unknown }).default ?? m.default) as new (
    opts: object,
  ) => { compile(schema: object): Validate };
  const ajv = new Ajv({ strict: false, allErrors: true });
  const v = ajv.compile(NBFORMAT_V4_SCHEMAS[String(minor)]);
  compiled.set(minor, v);
  return v;
}
