// The streams a command writes to: process.stdout/stderr in the CLI, buffers
// in tests and in \`rt call\`. One shape for every face and UI command.
export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Bytes as they come (rt bash on a terminal); default: decoded and passed to stdout/stderr. */
  write?: (stream: "stdout" | "stderr", data: Buffer) => void;
  /** Which streams are terminals: colour, progress lines, streamed output (default: neither). */
  tty?: { stdout: boolean; stderr: boolean };
  /** Default: process.env (NO_COLOR, TERM). */
  env?: NodeJS.ProcessEnv;
  /** Default: process.cwd(). */
  cwd?: string;
}
