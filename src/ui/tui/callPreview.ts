// What a tool call will do, from its arguments: the command it runs, or the
// text an edit removes (-) and adds (+). Shown by the approval dialog before
// the call, and under an edit's result line after it (the diff, coloured).
export interface PreviewLine {
  text: string;
  tone: "plain" | "add" | "remove";
}

/** What the approval shows of the call: the command, or the change an edit would make. */
export function callPreview(args: unknown): PreviewLine[] {
  const a = (args && typeof args === "object" ? args : {}) as Record<string, unknown>;
  const out: PreviewLine[] = [];
  const block = (s: string, tone: "plain" | "add" | "remove", sign: string) => {
    for (const l of s.replace(/\n$/, "").split("\n")) out.push({ text: `${sign}${l}`, tone });
  };
  if (typeof a.command === "string") block(a.command, "plain", "$ ");
  else if (typeof a.old_string === "string" && typeof a.new_string === "string") {
    block(a.old_string, "remove", "- ");
    block(a.new_string, "add", "+ ");
  } else if (Array.isArray(a.edits)) {
    for (const e of a.edits as Array<Record<string, unknown>>) {
      if (typeof e?.old_string === "string") block(e.old_string, "remove", "- ");
      if (typeof e?.new_string === "string") block(e.new_string, "add", "+ ");
    }
  } else if (typeof a.content === "string") block(a.content, "add", "+ ");
  else if (typeof a.new_text === "string" || typeof a.text === "string")
    block(String(a.new_text ?? a.text), "add", "+ ");
  return out;
}
