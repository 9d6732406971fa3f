import type * as z from "zod";
import type { Workspace } from "../workspace/workspace.js";
import type { ImageLimits, ImageMediaType } from "../parsers/image.js";

/** What every tool returns: data, never an exception. */
export interface ToolResult {
  success: boolean;
  output: string;
  error?: string;
  /** Why a call failed before its handler ran: "usage" (unknown tool, bad arguments) or "denied" (policy). */
  error_type?: "usage" | "denied" | "tool";
  /** Images for the model (read of an image, a PDF's pages as_images): only when the face asked for them (ToolContext.imageInput). */
  images?: ToolImage[];
  [metadata: string]: unknown;
}

/** An image a tool returns, already fitted to the limits the face gave. */
export interface ToolImage {
  media_type: ImageMediaType;
  data_base64: string;
  width: number;
  height: number;
}

/**
 * How a face takes images from tools. Absent: it shows none (the CLI, `rt call`):
 * read describes an image (type, bytes, pixels) instead. `vision: false`: the
 * model cannot see images, and read says so in text. `vision: true`: images come
 * back in ToolResult.images, within the limits of the model's provider.
 */
export type ImageInput = { vision: false; reason: string } | { vision: true; limits: ImageLimits };

/** What a long call reports while it runs (faces that can show it pass onProgress). */
export type ToolProgress =
  /** Output as it arrives (bash), as the bytes the command wrote. */
  | { kind: "output"; stream: "stdout" | "stderr"; data: Buffer }
  /** How far it got: a line for people, and a count that only grows (grep's matches so far). */
  | { kind: "status"; message: string; done?: number };

/** Everything a handler may use. Handlers never look at process.env or argv themselves. */
export interface ToolContext {
  workspace: Workspace;
  /** Aborted when the caller gives up (timeouts, Ctrl-C in the agent). */
  signal?: AbortSignal;
  /** Called with progress while the call runs, when the face can show it (a terminal, an MCP progress token). */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * A question to a (small, fast) model, when the face has one: the agent
   * provides it (agent.small_model, else the session's model); the CLI and MCP
   * faces do not. web_fetch applies its prompt to a page with it.
   */
  askModel?: (question: ModelQuestion) => Promise<string>;
  /**
   * Whether images go to a model from this face, and within which limits (see
   * ImageInput); asked only by a tool about to return an image (the agent may
   * have to ask the model's server).
   */
  imageInput?: () => Promise<ImageInput>;
  /**
   * The characters of output the face passes on (the agent's budget for a pageable tool). A
   * tool that pages (read) ends at a line within it, with its own continuation hint, instead of
   * being cut by the face. Absent: the tool's own cap.
   */
  outputBudget?: number;
}

/** What askModel sends: a system prompt and one user message. */
export interface ModelQuestion {
  system: string;
  prompt: string;
  signal?: AbortSignal;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Other names that reach the same tool (the older names some clients call, like open_file_chunk or search_dir; `glob` for `find`...). */
  aliases: string[];
  /** Written for a model: what it does, when to use it, what it returns. */
  description: string;
  /** One sentence, for the agent's lean tool set (small local models): tools without one are not in it. */
  brief?: string;
  schema: S;
  /** True when the tool never changes anything on disk. */
  readOnly: boolean;
  /**
   * False for a tool that changes things but never destroys or overwrites any
   * (write_output only creates new files; bash_output only reads a shell's
   * output). Defaults to !readOnly. It is MCP's destructiveHint.
   */
  destructive?: boolean;
  /** True when calling it twice with the same arguments has the same effect as once. */
  idempotent?: boolean;
  /** An editing tool (edit, write, undo...): RT_ENABLE_SWE=0 turns these off. */
  editing?: boolean;
  /**
   * One of the SWE tools (navigation, search and line editing: open,
   * scroll, find, grep, grep-file, edit_range, insert_at, edit_file):
   * RT_ENABLE_SWE=0 turns these off too, read-only or not.
   */
  swe?: boolean;
  /**
   * Not read-only, but safe in the safe-read-only profile because the tool
   * enforces that itself: bash runs inside the OS sandbox, SQL inside read-only
   * transactions, write_output only creates new files in the output directory.
   */
  enforcesReadOnly?: boolean;
  /**
   * For tools that reach the network (web_fetch): what one approval covers,
   * such as the host of the URL. In the approval modes that ask, the user is
   * asked once per scope; a call the face cannot ask about is refused.
   */
  approvalScope?: (args: z.infer<S>) => string | undefined;
  /**
   * Why the tool cannot work in this workspace (web_search without a
   * configured backend), or undefined when it can. Such a tool is not offered
   * to the model nor listed on the MCP face; a direct call still says why.
   */
  unavailable?: (workspace: Workspace) => string | undefined;
  handler: (args: z.infer<S>, ctx: ToolContext) => Promise<ToolResult>;
  /**
   * The argument schema as JSON Schema, for a tool defined as data (custom
   * tools, MCP servers' tools): its own schema is shown as it is, and `schema`
   * only validates against it.
   */
  inputJsonSchema?: Record<string, unknown>;
}

/** Where the policy looks tools up: the whole registry, or a narrower set (a subagent's tools, a one-shot command's tool). */
export interface ToolLookup {
  find(name: string): Tool | undefined;
  /** The names listed when a call names no tool of the set. */
  names(): readonly string[];
}

export function ok(output: string, metadata: Record<string, unknown> = {}): ToolResult {
  return { success: true, output, ...metadata };
}

export function fail(error: string, metadata: Record<string, unknown> = {}): ToolResult {
  return { success: false, output: "", error, error_type: "tool", ...metadata };
}

// ToolError lives at the bottom layer (workspace, shell and db throw it too); tools import it from here.
export { ToolError } from "../base/errors.js";

/** A tool as its module writes it: the schema is a function, called the first time something reads it. */
export interface ToolSpec<S extends z.ZodType> extends Omit<Tool<S>, "schema"> {
  schema: () => S;
}

/**
 * The tool, its zod schema built the first time something reads it (a command like `rt open` builds one
 * schema, not every tool's). Everything a face knows about a tool comes from this object.
 */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): Tool<S> {
  const { schema: make, ...rest } = spec;
  let schema: S | undefined;
  return Object.defineProperty(rest, "schema", { get: () => (schema ??= make()), enumerable: true }) as Tool<S>;
}
