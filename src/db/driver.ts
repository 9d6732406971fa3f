// The one small interface every database engine implements, and the value
// conversions they share. Drivers are loaded with import() by openDriver, so
// `rt open` and friends never load a database client.
import type { ConnectionSpec } from "./connections.js";

/** A value as rt shows and returns it: JSON-safe. Binary values become `{blob, hex}`. */
export type Cell = null | string | number | boolean | { blob: number; hex: string };

export interface QueryRequest {
  /** Exactly one statement (rt's check has already passed it, or a test bypasses the check on purpose). */
  sql: string;
  /** Positional values, or named ones (SQLite's :name). */
  params?: unknown[] | Record<string, unknown>;
  /** At most this many rows are returned; `more` tells whether another one existed. */
  limit: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface QueryResult {
  columns: string[];
  rows: Cell[][];
  /** True when the statement had more rows than `limit`. */
  more: boolean;
}

/** A catalog query built by a driver for sql_tables / sql_describe. */
export interface CatalogQuery {
  sql: string;
  params: unknown[] | Record<string, unknown>;
}

export interface Driver {
  readonly engine: ConnectionSpec["engine"];
  /** Runs one statement in the engine's read-only mode, with the statement timeout. */
  run(req: QueryRequest): Promise<QueryResult>;
  /** Tables and views whose name matches a LIKE pattern (undefined: all): columns schema?, name, type. */
  tablesQuery(pattern: string | undefined): CatalogQuery;
  /** The columns of one table or view: column, type, nullable, default, key. Undefined when the name cannot be read. */
  describeQuery(table: string): CatalogQuery | undefined;
}

export type DbErrorKind = "refused" | "timeout" | "connect" | "sql" | "missing-driver" | "aborted";

/** A failure the tool reports as it is: why, and what to do. `kind: "refused"` means the engine refused a write. */
export class DbError extends Error {
  constructor(
    message: string,
    readonly kind: DbErrorKind,
    readonly code?: string,
  ) {
    super(message);
    this.name = "DbError";
  }
}

/** Converts whatever a client library returned into a Cell. */
export function toCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v === "bigint")
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  if (v instanceof Uint8Array) return { blob: v.length, hex: Buffer.from(v.subarray(0, 32)).toString("hex") };
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));
  } catch {
    return String(v);
  }
}

/** Milliseconds as rt says them in messages: "30 s", "1.5 s", "200 ms". */
/**
 * Closes a connection (through `kill`) when the caller aborts, or after `ms`
 * with no answer: a watchdog in case the server does not answer at all.
 * `timedOut` says whether the timer fired; call `release` when done.
 */
/**
 * The part of a client rt uses from `pg` and from `vertica-nodejs` (a fork of
 * pg with the same Client): connect, query, end, and the socket to destroy
 * when a statement must be stopped.
 */
export interface PgStyleClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  query<T>(submittable: T): T;
  end(): Promise<void>;
  on(event: "error", listener: (e: Error) => void): unknown;
  connection?: { stream?: { destroy(): void } };
}

export function connectionGuard(
  kill: () => void,
  ms: number,
  signal?: AbortSignal,
): { readonly timedOut: boolean; release(): void } {
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    kill();
  }, ms);
  signal?.addEventListener("abort", kill, { once: true });
  return {
    get timedOut() {
      return fired;
    },
    release() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", kill);
    },
  };
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** Imports a client library, or explains how to install it. */
export async function importClient<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ERR_MODULE_NOT_FOUND" || err.code === "MODULE_NOT_FOUND") {
      throw new DbError(
        `the ${name} client library is not installed: run npm install in rt's directory (it is one of rt's dependencies)`,
        "missing-driver",
      );
    }
    throw new DbError(`the ${name} client library could not be loaded: ${err.message}`, "missing-driver");
  }
}
