// What a custom tool definition holds once checked (customTools.ts checks it, customRun.ts runs it).

export interface ToolTest {
  args: Record<string, unknown>;
  exit_code: number;
  output_contains?: string;
}

export interface CustomToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  command: string[];
  read_only: boolean;
  timeout: number;
  tests: ToolTest[];
  /** The file it came from (absolute). */
  file: string;
  origin: "project" | "user" | "session";
}

/** The environment variable an argument is passed in: RT_ARG_ and its name in upper case, other characters as _. */
export function argEnvName(name: string): string {
  return `RT_ARG_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}
