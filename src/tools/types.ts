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
   * The tool as an `rt` command (`rt open PATH`): which words and options fill which arguments. The
   * CLI face derives the parser, the synopsis and the help from it and from the schema (an option's
   * type, range, choices and help); a tool without it is reachable as `rt call NAME` / `rt tool NAME`.
   */
  cli?: CliShape;
  /**
   * The argument schema as JSON Schema, for a tool defined as data (custom
   * tools, MCP servers' tools): its own schema is shown as it is, and `schema`
   * only validates against it.
   */
  inputJsonSchema?: Record<string, unknown>;
}

/**
 * How a tool is called from a shell: `rt COMMAND WORD... --option VALUE`. Plain data but for `refine`;
 * everything the schema says (types, ranges, choices, descriptions) is read from the schema instead.
 */
export interface CliShape {
  /**
   * The command's name; default the tool's name with "-" for "_" (grep_file: `rt grep-file`). A
   * command named otherwise is also listed in CLI_COMMANDS (toolModules.ts), so `rt NAME` loads
   * this tool's module alone.
   */
  command?: string;
  /** One line for `rt --help`, after the synopsis. */
  summary: string;
  /** The usage line; default one made from the positionals and options (`rt word-count PATH [--limit N]`). */
  synopsis?: string;
  /** The words after the command, in order, and the argument each fills. */
  positionals: readonly CliPositional[];
  /** Other orders of words, each used when its `when` holds (rt symbols --grep NAME [DIR]). */
  forms?: readonly { when: Readonly<Record<string, string | true>>; positionals: readonly CliPositional[] }[];
  /** The arguments given as options, by argument name, in the order help lists them; no other is one. */
  options?: Readonly<Record<string, CliOption>>;
  /** Options of the command line alone, that fill no argument (edit's --delete): read by `refine`. */
  flags?: Readonly<Record<string, { help: string }>>;
  /** The argument standard input fills (edit's new text). */
  stdin?: string;
  /** Arguments every call of the command has (rt delete is edit_lines' "delete" command). */
  fixed?: Readonly<Record<string, unknown>>;
  /**
   * Rules of the command line that are not the schema's (rt edit refuses an empty standard input
   * unless --delete): may complete `args`; returns a usage error, or undefined.
   */
  refine?: (
    args: Record<string, unknown>,
    flags: Record<string, boolean>,
    words: readonly string[],
  ) => string | undefined;
}

/** A word of the command line that fills an argument. */
export interface CliPositional {
  /** The argument; with several, the first whose type takes the word (lsp's COLUMN|SYMBOL: a number is a column). */
  key: string | readonly string[];
  /** How the synopsis and messages write it ("PATH"); for an argument of fixed choices, the words shown ("+|-"). */
  name: string;
  optional?: boolean;
  /**
   * A path: relative to the current directory, passed relative to the root. "here": when left out,
   * the current directory (when it is inside the root and not the root itself).
   */
  path?: true | "here";
  /** Takes every remaining word: one is passed as it is, several are shell-quoted into one (rt bash -- WORD...). */
  rest?: boolean;
}

/** An argument given as an option. */
export interface CliOption {
  /** The long option; default the argument's name with "-" for "_". */
  flag?: string;
  /** A one-letter form (grep's -i). */
  short?: string;
  /** A path, as for a positional. */
  path?: true | "here";
  /** Help for the option, only where the command line differs from the schema's description (another default). */
  help?: string;
  /** For an argument of fixed choices: a flag per value instead (grep's -l for output_mode files_with_matches). */
  values?: Readonly<Record<string, { value: string; short?: string; help: string }>>;
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
