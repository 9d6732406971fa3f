// Which databases the SQL tools may reach: the named `databases` of the
// configuration, then the ones the environment describes (SQLITE_DB,
// DATABASE_URL or PG*, ORACLE_*, VERTICA_*), chosen by name. A project's
// `.rt/config.json` adds connections only once the user trusts the folder
// (except a SQLite file inside the root: src/base/configTrust.ts), and never gets
// PGPASSWORD for a server other than the one PGHOST/PGPORT name.
import path from "node:path";
import os from "node:os";
import { ConfigError, loadConfigDetailed, type DatabaseConfig } from "../base/config.js";
import { formatKeyList, shellQuotePath } from "../base/configTrust.js";
import { ToolError } from "../base/errors.js";
import { SQL_STATEMENT_TIMEOUT_MS } from "../base/limits.js";
import type { Dialect } from "./sqlText.js";

export type Engine = Dialect;

interface Base {
  name: string;
  /** Where it was configured: a config file, or the environment variables used. */
  origin: string;
  timeoutMs: number;
  description?: string;
  /** Environment variable holding the password, read when the connection is used. */
  passwordEnv?: string;
  /** Configured by the project's .rt/config.json (not by the user or the environment). */
  fromProject?: boolean;
}

export interface SqliteSpec extends Base {
  engine: "sqlite";
  path: string;
}
export interface PostgresSpec extends Base {
  engine: "postgres";
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  /** A function refuses to answer the server's password request (see guardEnvironmentPassword); pg calls it only when asked. */
  password?: string | (() => Promise<string>);
  ssl?: boolean | "require" | "no-verify" | "disable";
}
export interface OracleSpec extends Base {
  engine: "oracle";
  connectString: string;
  user: string;
  password?: string;
}
export interface VerticaSpec extends Base {
  engine: "vertica";
  host: string;
  port: number;
  database?: string;
  user?: string;
  password?: string;
}
export type ConnectionSpec = SqliteSpec | PostgresSpec | OracleSpec | VerticaSpec;

export interface WorkspaceLike {
  root: string;
  env: NodeJS.ProcessEnv;
}

function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  if (p === "~" || p.startsWith("~/")) return path.join(env.HOME || os.homedir(), p.slice(1));
  return p;
}

function fromConfig(name: string, c: DatabaseConfig, origin: string, ws: WorkspaceLike): ConnectionSpec {
  const base = { name, origin, timeoutMs: c.timeout_ms ?? SQL_STATEMENT_TIMEOUT_MS, description: c.description };
  switch (c.type) {
    case "sqlite":
      return { ...base, engine: "sqlite", path: path.resolve(ws.root, expandHome(c.path, ws.env)) };
    case "postgres":
    case "postgresql":
      return {
        ...base,
        engine: "postgres",
        connectionString: c.url,
        host: c.host,
        port: c.port === undefined ? undefined : Number(c.port),
        database: c.database,
        user: c.user,
        // A password_env is looked up when the connection is used, so listing never fails on it.
        password: c.password,
        passwordEnv: c.password_env,
        ssl: c.ssl,
      };
    case "oracle":
      return {
        ...base,
        engine: "oracle",
        connectString: c.dsn,
        user: c.user,
        password: c.password,
        passwordEnv: c.password_env,
      };
    case "vertica":
      return {
        ...base,
        engine: "vertica",
        host: c.host,
        port: c.port === undefined ? 5433 : Number(c.port),
        database: c.database,
        user: c.user,
        password: c.password,
        passwordEnv: c.password_env,
      };
  }
}

/** The connections the environment describes, named after their engine. */
export function connectionsFromEnv(ws: WorkspaceLike): ConnectionSpec[] {
  const env = ws.env;
  const out: ConnectionSpec[] = [];
  const timeoutMs = SQL_STATEMENT_TIMEOUT_MS;
  if (env.SQLITE_DB) {
    out.push({
      name: "sqlite",
      origin: "SQLITE_DB",
      timeoutMs,
      engine: "sqlite",
      path: path.resolve(ws.root, expandHome(env.SQLITE_DB, env)),
    });
  }
  const url = env.DATABASE_URL;
  if (url && /^postgres(ql)?:\/\//i.test(url)) {
    out.push({ name: "postgres", origin: "DATABASE_URL", timeoutMs, engine: "postgres", connectionString: url });
  } else if (env.PGHOST || env.PGDATABASE || env.PGUSER || env.PGPORT) {
    const used = ["PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGSSLMODE"].filter((k) => env[k]);
    const sslmode = env.PGSSLMODE;
    out.push({
      name: "postgres",
      origin: used.join(", "),
      timeoutMs,
      engine: "postgres",
      host: env.PGHOST,
      port: env.PGPORT ? Number(env.PGPORT) : undefined,
      database: env.PGDATABASE,
      user: env.PGUSER,
      password: env.PGPASSWORD,
      ssl: sslmode === "require" || sslmode === "verify-ca" || sslmode === "verify-full" ? "require" : undefined,
    });
  }
  if (env.ORACLE_DSN) {
    out.push({
      name: "oracle",
      origin: "ORACLE_DSN, ORACLE_USER, ORACLE_PASSWORD",
      timeoutMs,
      engine: "oracle",
      connectString: env.ORACLE_DSN,
      user: env.ORACLE_USER ?? "",
      password: env.ORACLE_PASSWORD,
    });
  }
  if (env.VERTICA_HOST) {
    out.push({
      name: "vertica",
      origin: "VERTICA_HOST, VERTICA_PORT, VERTICA_DATABASE, VERTICA_USER, VERTICA_PASSWORD",
      timeoutMs,
      engine: "vertica",
      host: env.VERTICA_HOST,
      port: env.VERTICA_PORT ? Number(env.VERTICA_PORT) : 5433,
      database: env.VERTICA_DATABASE,
      user: env.VERTICA_USER,
      password: env.VERTICA_PASSWORD,
    });
  }
  return out;
}

export interface Connections {
  list: ConnectionSpec[];
  defaultName?: string;
  /** The project's database keys left out until the folder is trusted, as "databases.x" (and how to trust), for error messages. */
  ignored?: string;
}

/** Every connection rt knows in this workspace: the configuration's first, then the environment's whose names are free. */
export function listConnections(ws: WorkspaceLike): Connections {
  let loaded;
  try {
    loaded = loadConfigDetailed(ws);
  } catch (e) {
    if (e instanceof ConfigError) throw new ToolError(`configuration error: ${e.message}`);
    throw e;
  }
  const list: ConnectionSpec[] = [];
  for (const [name, c] of Object.entries(loaded.config.databases ?? {})) {
    const origin = loaded.databaseOrigins[name] ?? "config";
    list.push({
      ...fromConfig(name, c, origin, ws),
      ...(origin === loaded.files.project ? { fromProject: true } : {}),
    });
  }
  for (const c of connectionsFromEnv(ws)) if (!list.some((l) => l.name === c.name)) list.push(c);
  const ignoredDb = loaded.trust.ignored.filter((k) => k.path[0] === "databases" || k.path[0] === "default_database");
  const ignored = ignoredDb.length
    ? `the project's .rt/config.json sets ${formatKeyList(ignoredDb)}, ignored until you trust this folder (rt trust ${shellQuotePath(loaded.trust.root)})`
    : undefined;
  return { list, defaultName: loaded.config.default_database, ...(ignored ? { ignored } : {}) };
}

/** A password-free description of where a connection points. */
export function describeTarget(c: ConnectionSpec): string {
  switch (c.engine) {
    case "sqlite":
      return c.path;
    case "postgres": {
      if (c.connectionString) return redactUrl(c.connectionString);
      return `${c.user ?? "(default user)"}@${c.host ?? "(default host)"}:${c.port ?? 5432}/${c.database ?? "(default database)"}`;
    }
    case "oracle":
      return `${c.user}@${c.connectString}`;
    case "vertica":
      return `${c.user ?? "(default user)"}@${c.host}:${c.port}/${c.database ?? "(default database)"}`;
  }
}

export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

function listing(conns: ConnectionSpec[]): string {
  return conns.map((c) => `${c.name} (${c.engine}, ${describeTarget(c)}; from ${c.origin})`).join("; ");
}

const HOW_TO_CONFIGURE =
  'Configure one in ~/.config/rt/config.json ({"databases": {"main": {"type": "sqlite", "path": "data/app.db"}}}; types sqlite, postgres, oracle, vertica), in the project\'s .rt/config.json (a SQLite file inside the root applies at once; other connections once you trust the folder: rt trust), or in the environment: SQLITE_DB; DATABASE_URL or PGHOST/PGPORT/PGDATABASE/PGUSER/PGPASSWORD; ORACLE_DSN/ORACLE_USER/ORACLE_PASSWORD; VERTICA_HOST/VERTICA_PORT/VERTICA_DATABASE/VERTICA_USER/VERTICA_PASSWORD';

/** The connection a call asked for (or the only / default one), or a ToolError listing what is configured. */
export function resolveConnection(ws: WorkspaceLike, name?: string): ConnectionSpec {
  const { list, defaultName, ignored } = listConnections(ws);
  const why = ignored ? ` (${ignored})` : "";
  if (list.length === 0) throw new ToolError(`no database connection is configured${why}. ${HOW_TO_CONFIGURE}`);
  let chosen: ConnectionSpec | undefined;
  if (name !== undefined) {
    chosen = list.find((c) => c.name === name);
    if (!chosen)
      throw new ToolError(`unknown connection "${name}"${why}; configured connections: ${listing(list)}`, {
        connections: list.map((c) => c.name),
      });
  } else if (defaultName !== undefined) {
    chosen = list.find((c) => c.name === defaultName);
    if (!chosen)
      throw new ToolError(
        `default_database names "${defaultName}", which is not configured; configured connections: ${listing(list)}`,
      );
  } else if (list.length === 1) {
    chosen = list[0];
  } else {
    throw new ToolError(
      `${list.length} connections are configured; pass connection: NAME (or set default_database in your configuration). Configured connections: ${listing(list)}`,
      { connections: list.map((c) => c.name) },
    );
  }
  return guardEnvironmentPassword(withPassword(chosen, ws));
}

/** host:port as libpq and pg default them: the connection's own, else its URL's, else PGHOST/PGPORT, else localhost:5432. */
function pgTarget(c: PostgresSpec, env: NodeJS.ProcessEnv): string {
  let urlHost: string | undefined;
  let urlPort: string | undefined;
  if (c.connectionString) {
    try {
      const u = new URL(c.connectionString);
      urlHost = decodeURIComponent(u.hostname) || u.searchParams.get("host") || undefined;
      urlPort = u.port || undefined;
    } catch {
      urlHost = "(unparsed URL)";
    }
  }
  const host = (c.host ?? urlHost ?? env.PGHOST ?? "localhost").toLowerCase();
  const port = String(c.port ?? urlPort ?? env.PGPORT ?? 5432);
  return `${host}:${port}`;
}

/** The server PGHOST/PGPORT name (what PGPASSWORD is for). */
function pgEnvironmentTarget(env: NodeJS.ProcessEnv): string {
  return `${(env.PGHOST ?? "localhost").toLowerCase()}:${env.PGPORT ?? 5432}`;
}

/**
 * PGPASSWORD is for the servers the user named (PGHOST/PGPORT, DATABASE_URL,
 * the user's own configuration). pg sends it to whatever server a connection
 * names when the connection has no password of its own, so a project's
 * connection (even in a trusted folder) to another host would receive it. Such
 * a connection gets a password function instead, which pg calls only if the
 * server asks: it refuses, saying how to give the connection a password.
 */
function guardEnvironmentPassword(c: ConnectionSpec): ConnectionSpec {
  if (c.engine !== "postgres" || !c.fromProject || c.password !== undefined) return c;
  // pg reads process.env, whatever environment the workspace was given.
  const target = pgTarget(c, process.env);
  const owner = pgEnvironmentTarget(process.env);
  if (!process.env.PGPASSWORD || target === owner) return c;
  const name = c.name;
  return {
    ...c,
    password: async () => {
      throw new Error(
        `the server at ${target} asks for a password and the project's connection "${name}" has none; PGPASSWORD is for ${owner} (PGHOST/PGPORT), so rt does not send it to a server a project names. Give "${name}" its own: password_env (or password) in its configuration`,
      );
    },
  };
}

function withPassword(c: ConnectionSpec, ws: WorkspaceLike): ConnectionSpec {
  if (!c.passwordEnv || c.engine === "sqlite") return c;
  const password = ws.env[c.passwordEnv];
  if (password === undefined) {
    throw new ToolError(
      `connection "${c.name}": its password comes from the environment variable ${c.passwordEnv}, which is not set; set it or put the password in the configuration`,
    );
  }
  return { ...c, password };
}
