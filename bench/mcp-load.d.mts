// Types for bench/mcp-load.mjs, for test/mcp/load.test.ts.
export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface McpLoadResult {
  calls: number;
  clients: number;
  answered: number;
  wallMs: number;
  throughput: number;
  all: LatencySummary;
  byKind: { read: LatencySummary; grep: LatencySummary; edit: LatencySummary };
  /** Empty when every call was answered correctly and no file was corrupted. */
  problems: string[];
}

export const DEFAULT_CLI: string;
export function runMcpLoad(opts?: {
  calls?: number;
  clients?: number;
  cli?: string;
  log?: (line: string) => void;
}): Promise<McpLoadResult>;
export function markdownSection(r: McpLoadResult, when?: Date): string;
export function writeSection(section: string, file?: string): void;
export function startServer(
  cli: string,
  root: string,
): Promise<{
  url: string;
  token: string | undefined;
  stderr: () => string;
  stop: () => Promise<{ code: number | null; signal: string | null }>;
}>;
export const SECTION_START: string;
export const SECTION_END: string;
