// SQLite through better-sqlite3 (built from source, no downloaded binary).
//
// Each statement runs in a short-lived child process, so that a statement that
// runs too long can be stopped for real (better-sqlite3 is synchronous and has
// no interrupt): the child is killed when the timeout passes. In the child the
// guarantees come from SQLite itself:
//   - the file is opened read-only (SQLITE_OPEN_READONLY) and must exist;
//   - the statement is prepared first, and refused unless SQLite reports it
//     read-only (sqlite3_stmt_readonly) and returning rows (a query);
//     better-sqlite3 refuses a string holding more than one statement;
//   - PRAGMA query_only is set on open and set again just before the statement
//     runs; trusted_schema is off.
// A database in WAL mode: SQLite cannot read one without its -wal and -shm
// files, and creates them beside the database when they are missing (a
// read-only connection then cannot remove them; better-sqlite3 opens no URI,
// so `immutable=1` is out of reach, and immutable would ignore a -wal's data
// anyway). So:
//   - a -wal file exists (a writer is connected, or one stopped without
//     checkpointing): read through it as SQLite does, which sees every
//     committed transaction, including those not yet checkpointed;
//   - no -wal file: every committed transaction is in the database file. Up to
//     SQLITE_WAL_SNAPSHOT_MAX_BYTES it is read into memory, checked unchanged
//     (same size, mtime and ctime, still no -wal) after the copy, marked as a
//     rollback-journal database (header bytes 18-19, the only WAL marker) and
//     queried there: nothing is created beside the file. A writer that starts
//     during the copy makes it retry, then read through the writer's -wal.
import fs from "node:fs";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import type { SqliteSpec } from "./connections.js";
import {
  DbError,
  formatDuration,
  type CatalogQuery,
  type Cell,
  type Driver,
  type QueryRequest,
  type QueryResult,
} from "./driver.js";
import { splitQualifiedName } from "./sqlText.js";
import { SQLITE_WAL_SNAPSHOT_MAX_BYTES } from "../base/limits.js";

/** The program the child runs (CommonJS, given to `node -e`). It receives one request and answers once. */
const CHILD_SOURCE = String.raw`
"use strict";
function cell(v) {
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Uint8Array) return { blob: v.length, hex: Buffer.from(v.subarray(0, 32)).toString("hex") };
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return v;
}
const fs = require("fs");
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const sameFile = (a, b) => a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
/**
 * The database as a buffer to query in memory, when it is in WAL mode and has no -wal file
 * (see the comment at the top of src/db/sqlite.ts); otherwise the reason to open it in place.
 */
function walSnapshot(path, maxBytes) {
  const fd = fs.openSync(path, "r");
  try {
    const head = Buffer.alloc(20);
    if (fs.readSync(fd, head, 0, 20, 0) < 20 || head.toString("latin1", 0, 16) !== "SQLite format 3\u0000") return { via: "file" };
    if (head[18] !== 2 && head[19] !== 2) return { via: "file" };
    for (let attempt = 0; attempt < 5; attempt++) {
      if (fs.existsSync(path + "-wal")) return { via: "wal" };
      const before = fs.fstatSync(fd, { bigint: true });
      if (before.size > BigInt(maxBytes)) return { via: "wal-too-big" };
      // A change in the same clock tick as the last one could leave mtime and ctime as they were: let the clock move on.
      if (BigInt(Date.now()) * 1000000n - before.mtimeNs < 20000000n || BigInt(Date.now()) * 1000000n - before.ctimeNs < 20000000n) {
        pause(25);
        continue;
      }
      const size = Number(before.size);
      const buf = Buffer.allocUnsafe(size);
      for (let off = 0; off < size; ) {
        const n = fs.readSync(fd, buf, off, size - off, off);
        if (n === 0) break;
        off += n;
      }
      const after = fs.fstatSync(fd, { bigint: true });
      if (!sameFile(before, after) || fs.existsSync(path + "-wal")) continue;
      buf[18] = 1;
      buf[19] = 1;
      return { via: "snapshot", buf };
    }
    return { via: "wal" };
  } finally {
    fs.closeSync(fd);
  }
}
process.once("message", (req) => {
  let db;
  // The connection is closed before answering: in WAL mode it holds a lock on the database for as long as it is
  // open, and a writer closing meanwhile would not be the last connection, so it would leave its -wal and -shm.
  const reply = (m) => {
    try { if (db && db.open) db.close(); } catch {}
    process.send(m, () => process.exit(0));
  };
  let phase = "load";
  try {
    const Database = require(req.module);
    phase = "open";
    const snap = walSnapshot(req.path, req.snapshotMaxBytes);
    db = snap.buf ? new Database(snap.buf, { readonly: true }) : new Database(req.path, { readonly: true, fileMustExist: true });
    snap.buf = undefined;
    db.defaultSafeIntegers(true);
    db.pragma("query_only = ON");
    db.pragma("trusted_schema = OFF");
    phase = "prepare";
    const stmt = db.prepare(req.sql);
    if (!stmt.readonly) return reply({ refused: "SQLite reports this statement as one that writes (sqlite3_stmt_readonly is false)" });
    if (!stmt.reader) return reply({ refused: "SQLite reports that this statement returns no rows, so it is not a query (PRAGMA, ATTACH, BEGIN and the like change the connection)" });
    phase = "run";
    db.pragma("query_only = ON");
    if (Number(db.pragma("query_only", { simple: true })) !== 1) return reply({ error: "PRAGMA query_only could not be set; refusing to run", phase });
    stmt.raw(true);
    const columns = stmt.columns().map((c) => c.name);
    const rows = [];
    let more = false;
    const params = req.params == null ? [] : Array.isArray(req.params) ? req.params : [req.params];
    for (const row of stmt.iterate(...params)) {
      if (rows.length >= req.limit) { more = true; break; }
      rows.push(row.map(cell));
    }
    reply({ columns, rows, more, via: snap.via });
  } catch (e) {
    reply({ error: String((e && e.message) || e), code: e && e.code, phase });
  }
});
`;

let modulePath: string | undefined;
function betterSqlite3Path(): string {
  if (modulePath) return modulePath;
  try {
    modulePath = createRequire(import.meta.url).resolve("better-sqlite3");
    return modulePath;
  } catch {
    throw new DbError(
      "the better-sqlite3 library is not installed: run npm install in rt's directory (it builds SQLite from source with python3, make and g++)",
      "missing-driver",
    );
  }
}

interface ChildAnswer {
  columns?: string[];
  rows?: Cell[][];
  more?: boolean;
  refused?: string;
  error?: string;
  code?: string;
  phase?: string;
  via?: SqliteReadVia;
}

const REFUSAL_CODES = new Set(["SQLITE_READONLY", "SQLITE_AUTH", "SQLITE_PERM"]);

function mapChildError(a: ChildAnswer, file: string): DbError {
  const msg = a.error ?? "unknown error";
  if (a.phase === "open") {
    return new DbError(`cannot open the SQLite database ${file} read-only: ${msg}`, "connect", a.code);
  }
  if (a.phase === "load")
    return new DbError(`the better-sqlite3 library could not be loaded: ${msg}`, "missing-driver");
  if ((a.code && REFUSAL_CODES.has(a.code)) || /more than one statement|readonly database|not authorized/i.test(msg)) {
    return new DbError(`refused by SQLite: ${msg}`, "refused", a.code);
  }
  return new DbError(`SQLite error${a.code ? ` (${a.code})` : ""}: ${msg}`, "sql", a.code);
}

/** How the child read the file: in place (not WAL), through its WAL, in place because too big to copy, or from an in-memory copy. */
export type SqliteReadVia = "file" | "wal" | "wal-too-big" | "snapshot";

/**
 * Runs one statement in a child process that is killed after `req.timeoutMs`.
 * `snapshotMaxBytes`: the largest WAL-mode file read into memory rather than opened in place (tests lower it).
 */
export function runSqlite(
  file: string,
  req: QueryRequest,
  snapshotMaxBytes = SQLITE_WAL_SNAPSHOT_MAX_BYTES,
): Promise<QueryResult & { via?: SqliteReadVia }> {
  if (!fs.existsSync(file)) {
    return Promise.reject(
      new DbError(
        `the SQLite database ${file} does not exist; rt opens existing databases read-only and never creates one (check SQLITE_DB or the connection's path)`,
        "connect",
      ),
    );
  }
  if (fs.statSync(file).isDirectory()) {
    return Promise.reject(
      new DbError(
        `the SQLite database ${file} is a directory, not a database file (check SQLITE_DB or the connection's path)`,
        "connect",
      ),
    );
  }
  const module = betterSqlite3Path();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", CHILD_SOURCE], {
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      env: { PATH: process.env.PATH ?? "" },
    });
    let settled = false;
    let stderr = "";
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(() =>
        reject(
          new DbError(
            `statement timed out after ${formatDuration(req.timeoutMs)} and was stopped; narrow the query (WHERE, LIMIT) or raise the connection's timeout_ms`,
            "timeout",
          ),
        ),
      );
    }, req.timeoutMs);
    const onAbort = () => {
      child.kill("SIGKILL");
      finish(() => reject(new DbError("the statement was cancelled", "aborted")));
    };
    if (req.signal?.aborted) return onAbort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    child.stderr!.on("data", (c: Buffer) => {
      if (stderr.length < 4000) stderr += c.toString("utf8");
    });
    child.on("error", (e) =>
      finish(() => reject(new DbError(`could not start the SQLite worker process: ${e.message}`, "connect"))),
    );
    child.on("message", (m: ChildAnswer) => {
      if (m.refused) return finish(() => reject(new DbError(`refused by SQLite: ${m.refused}`, "refused")));
      if (m.error !== undefined) return finish(() => reject(mapChildError(m, file)));
      finish(() => resolve({ columns: m.columns ?? [], rows: m.rows ?? [], more: m.more === true, via: m.via }));
    });
    child.on("exit", (code, sig) => {
      finish(() =>
        reject(
          new DbError(
            `the SQLite worker process ended without an answer (${sig ?? `exit ${code}`})${stderr ? `: ${stderr.trim()}` : ""}`,
            "sql",
          ),
        ),
      );
    });
    child.send({ module, path: file, sql: req.sql, params: req.params ?? [], limit: req.limit, snapshotMaxBytes });
  });
}

export function sqliteDriver(spec: SqliteSpec): Driver {
  return {
    engine: "sqlite",
    run: (req) => runSqlite(spec.path, req),
    tablesQuery(pattern): CatalogQuery {
      return {
        sql: `SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND (:p IS NULL OR name LIKE :p) ORDER BY name`,
        params: { p: pattern ?? null },
      };
    },
    describeQuery(table): CatalogQuery | undefined {
      const q = splitQualifiedName(table, "sqlite");
      if (!q || q.parts.length > 2) return undefined;
      const [schema, name] = q.parts.length === 2 ? q.parts : ["main", q.parts[0]];
      return {
        sql: `SELECT name AS "column", type, CASE WHEN "notnull" THEN 'NO' ELSE 'YES' END AS nullable, dflt_value AS "default", CASE WHEN pk > 0 THEN 'PK' ELSE '' END AS "key" FROM pragma_table_info(:t, :s) ORDER BY cid`,
        params: { t: name, s: schema },
      };
    },
  };
}
