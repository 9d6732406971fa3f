// The `scripted` provider: `--model scripted/PATH.json` replays a JSON script of model
// answers over the provider interface, so users testing their own tools, hooks, slash
// commands and agents get rt's real loop without a model.
//
//   { "turns": [
//       { "text": "I will read it." , "tool_calls": [{ "name": "read", "arguments": { "path": "a.txt" } }] },
//       { "text": "Done." },
//       { "error": { "kind": "rate_limit", "message": "slow down" } }
//   ] }
//
// (a bare array of turns is taken too). Each model request takes the next turn, in order,
// across the whole process (subagents take the turns after their parent's). A turn may
// also give `reasoning`, `usage` {input, output} and `finish` (a FinishReason). When the
// turns run out, the request fails with a ProviderError naming the script.
import fs from "node:fs";
import * as z from "zod";
import { ProviderError, type ModelRequest, type Provider, type ProviderErrorKind, type StreamPart } from "./types.js";

const ERROR_KINDS = [
  "unreachable",
  "auth",
  "rate_limit",
  "server",
  "bad_request",
  "tools_unsupported",
  "model_not_found",
  "stream_broken",
  "timeout",
  "stream_error",
] as const satisfies readonly ProviderErrorKind[];

const TurnSchema = z
  .object({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    tool_calls: z
      .array(
        z
          .object({
            id: z.string().optional(),
            name: z.string().min(1),
            arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
          })
          .strict(),
      )
      .optional(),
    usage: z
      .object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() })
      .strict()
      .optional(),
    finish: z.enum(["stop", "tool_calls", "length", "refusal", "content_filter", "other"]).optional(),
    error: z
      .object({ kind: z.enum(ERROR_KINDS), message: z.string(), status: z.number().int().optional() })
      .strict()
      .optional(),
  })
  .strict();
const ScriptSchema = z.union([z.array(TurnSchema), z.object({ turns: z.array(TurnSchema) }).strict()]);
export type ScriptTurn = z.infer<typeof TurnSchema>;

/** Reads and checks a script; throws an Error naming the file and what is wrong. */
export function readScript(file: string): ScriptTurn[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`scripted model ${file}: ${(e as Error).message}`);
  }
  const r = ScriptSchema.safeParse(raw);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ");
    throw new Error(
      `scripted model ${file}: ${why}. Expected {"turns": [{"text": "...", "tool_calls": [{"name": "...", "arguments": {...}}]}, ...]}`,
    );
  }
  return Array.isArray(r.data) ? r.data : r.data.turns;
}

/** How far each script has been played in this process. */
const positions = new Map<string, number>();

export function createScriptedProvider(file: string): Provider {
  const turns = readScript(file);
  return {
    name: "scripted",
    async contextWindow() {
      return undefined;
    },
    async vision() {
      return false;
    },
    async listModels() {
      return [file];
    },
    async *stream(req: ModelRequest): AsyncGenerator<StreamPart> {
      const at = positions.get(file) ?? 0;
      if (req.signal?.aborted) throw new ProviderError("the request was aborted", "aborted");
      if (at >= turns.length) {
        throw new ProviderError(
          `scripted model ${file} has no answer left: its ${turns.length} turn(s) were all played`,
          "bad_request",
        );
      }
      positions.set(file, at + 1);
      const t = turns[at];
      if (t.reasoning) yield { type: "reasoning", delta: t.reasoning };
      if (t.text) yield { type: "text", delta: t.text };
      if (t.error) throw new ProviderError(t.error.message, t.error.kind, t.error.status);
      for (const [i, c] of (t.tool_calls ?? []).entries()) {
        const args = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {});
        yield { type: "tool_call", call: { id: c.id ?? `scripted_${at}_${i}`, name: c.name, arguments: args } };
      }
      const inputChars = req.messages.reduce((n, m) => n + m.content.length, 0);
      yield {
        type: "usage",
        usage: t.usage
          ? { inputTokens: t.usage.input, outputTokens: t.usage.output }
          : { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil((t.text ?? "").length / 4) },
      };
      yield { type: "finish", reason: t.finish ?? (t.tool_calls?.length ? "tool_calls" : "stop") };
    },
  };
}
