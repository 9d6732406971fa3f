// rt's configuration file and the database connections it and the environment describe.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { tempTree } from "../helpers.ts";
import { trustFolder } from "../security/trust-harness.ts";
import { ConfigError, loadConfig, loadConfigDetailed, mergeConfig } from "../../src/base/config.ts";
import { connectionsFromEnv, describeTarget, listConnections, resolveConnection } from "../../src/db/connections.ts";
import { createWorkspace } from "../../src/workspace/workspace.ts";
import { callTool } from "../../src/tools/policy.ts";

function setup(user?: unknown, project?: unknown, env: Record<string, string> = {}) {
  const home = tempTree({}, "rt-home-");
  const root = tempTree({}, "rt-root-");
  if (user !== undefined) {
    fs.mkdirSync(path.join(home, ".config", "rt"), { recursive: true });
    fs.writeFileSync(
      path.join(home, ".config", "rt", "config.json"),
      typeof user === "string" ? user : JSON.stringify(user),
    );
  }
  if (project !== undefined) {
    fs.mkdirSync(path.join(root, ".rt"), { recursive: true });
    fs.writeFileSync(
      path.join(root, ".rt", "config.json"),
      typeof project === "string" ? project : JSON.stringify(project),
    );
  }
  // These tests are about merging and choosing: the project is one the user trusts (test/security/trust-*.test.ts covers untrusted ones).
  if (project !== undefined && typeof project !== "string") trustFolder(root, { HOME: home });
  return { home, root, ws: { root, env: { HOME: home, ...env } as NodeJS.ProcessEnv } };
}

test("no configuration files: an empty configuration", () => {
  const { ws } = setup();
  assert.deepEqual(loadConfig(ws), {});
});

test("the project's file overrides the user's; database entries are replaced whole; unknown keys are kept", () => {
  const { ws, home, root } = setup(
    {
      databases: {
        main: { type: "postgres", url: "postgres://u@h/db", timeout_ms: 5000 },
        mine: { type: "sqlite", path: "/data/mine.db" },
      },
      providers: { openai: { model: "a", temperature: 0 } },
      theme: "dark",
    },
    {
      databases: { main: { type: "sqlite", path: "app.db" } },
      providers: { openai: { model: "b" } },
      default_database: "main",
    },
  );
  const d = loadConfigDetailed(ws);
  assert.deepEqual(d.config.databases?.main, { type: "sqlite", path: "app.db" });
  assert.deepEqual(d.config.databases?.mine, { type: "sqlite", path: "/data/mine.db" });
  assert.deepEqual((d.config as Record<string, unknown>).providers, { openai: { model: "b", temperature: 0 } });
  assert.equal((d.config as Record<string, unknown>).theme, "dark");
  assert.equal(d.config.default_database, "main");
  assert.equal(d.databaseOrigins.main, path.join(root, ".rt", "config.json"));
  assert.equal(d.databaseOrigins.mine, path.join(home, ".config", "rt", "config.json"));
});

test("XDG_CONFIG_HOME moves the user's file", () => {
  const xdg = tempTree(
    { "rt/config.json": JSON.stringify({ databases: { x: { type: "sqlite", path: "/x.db" } } }) },
    "rt-xdg-",
  );
  const { ws } = setup(undefined, undefined, { XDG_CONFIG_HOME: xdg });
  assert.deepEqual(Object.keys(loadConfig(ws).databases ?? {}), ["x"]);
});

test("mergeConfig: objects merge key by key, arrays and scalars are replaced", () => {
  assert.deepEqual(mergeConfig({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: 2 }), {
    a: { b: 1, c: [3] },
    d: 2,
  });
});

test("a broken file is named in the error, with what is wrong", () => {
  const bad = setup(undefined, "{ databases: ");
  assert.throws(
    () => loadConfig(bad.ws),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.includes(path.join(bad.root, ".rt", "config.json")) &&
      /not valid JSON/.test(e.message),
  );
  const wrongType = setup({ databases: { main: { type: "mysql", path: "x" } } });
  assert.throws(
    () => loadConfig(wrongType.ws),
    (e: unknown) =>
      e instanceof ConfigError && /config\.json: databases\.main\.type: Invalid discriminator value/.test(e.message),
  );
  const missing = setup(undefined, { databases: { main: { type: "sqlite" } } });
  assert.throws(() => loadConfig(missing.ws), /databases\.main\.path/);
  const notObject = setup(undefined, "[1, 2]");
  assert.throws(() => loadConfig(notObject.ws), /must hold a JSON object/);
});

test("connections from the environment: SQLITE_DB, DATABASE_URL or PG*, ORACLE_*, VERTICA_*", () => {
  const root = "/work/project";
  const env = {
    SQLITE_DB: "data/app.db",
    DATABASE_URL: "postgresql://reader:secret@db.local:6543/app",
    PGHOST: "ignored-because-DATABASE_URL-wins",
    ORACLE_DSN: "ora.local:1521/ORCLPDB1",
    ORACLE_USER: "scott",
    ORACLE_PASSWORD: "tiger",
    VERTICA_HOST: "vertica.local",
    VERTICA_DATABASE: "analytics",
    VERTICA_USER: "dbadmin",
  };
  const list = connectionsFromEnv({ root, env });
  assert.deepEqual(
    list.map((c) => [c.name, c.engine]),
    [
      ["sqlite", "sqlite"],
      ["postgres", "postgres"],
      ["oracle", "oracle"],
      ["vertica", "vertica"],
    ],
  );
  const [sqlite, pgc, ora, vert] = list;
  assert.equal(sqlite.engine === "sqlite" && sqlite.path, "/work/project/data/app.db");
  assert.equal(pgc.engine === "postgres" && pgc.connectionString, env.DATABASE_URL);
  assert.equal(describeTarget(pgc), "postgresql://reader:***@db.local:6543/app");
  assert.deepEqual(ora.engine === "oracle" && [ora.connectString, ora.user, ora.password], [
    "ora.local:1521/ORCLPDB1",
    "scott",
    "tiger",
  ]);
  assert.deepEqual(vert.engine === "vertica" && [vert.host, vert.port, vert.database, vert.user], [
    "vertica.local",
    5433,
    "analytics",
    "dbadmin",
  ]);
  assert.equal(
    list.every((c) => c.timeoutMs === 30_000),
    true,
  );

  const pgOnly = connectionsFromEnv({
    root,
    env: { PGHOST: "h", PGPORT: "5439", PGUSER: "u", PGDATABASE: "d", PGPASSWORD: "p", PGSSLMODE: "require" },
  });
  assert.equal(pgOnly.length, 1);
  const p = pgOnly[0];
  assert.ok(p.engine === "postgres");
  assert.deepEqual([p.host, p.port, p.user, p.database, p.password, p.ssl], ["h", 5439, "u", "d", "p", "require"]);
  assert.equal(p.origin, "PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE");
  // A DATABASE_URL for another engine is not taken for PostgreSQL.
  assert.deepEqual(connectionsFromEnv({ root, env: { DATABASE_URL: "mysql://x@y/z" } }), []);
});

test("choosing a connection: by name, the default, the only one; errors list what is configured", () => {
  const { ws } = setup(
    undefined,
    {
      databases: {
        main: { type: "sqlite", path: "main.db", timeout_ms: 1500 },
        wh: { type: "postgres", url: "postgres://u:pw@h/db" },
      },
    },
    { SQLITE_DB: "/env.db" },
  );
  assert.deepEqual(
    listConnections(ws).list.map((c) => c.name),
    ["main", "wh", "sqlite"],
  );
  const main = resolveConnection(ws, "main");
  assert.equal(main.engine === "sqlite" && main.path, path.join(ws.root, "main.db"));
  assert.equal(main.timeoutMs, 1500);
  assert.throws(
    () => resolveConnection(ws, "nope"),
    (e: Error) => {
      assert.match(
        e.message,
        /unknown connection "nope"; configured connections: main \(sqlite, .*main\.db; from .*config\.json\); wh \(postgres, postgres:\/\/u:\*\*\*@h\/db; from .*\); sqlite \(sqlite, \/env\.db; from SQLITE_DB\)/,
      );
      assert.doesNotMatch(e.message, /pw/);
      return true;
    },
  );
  assert.throws(
    () => resolveConnection(ws),
    /3 connections are configured; pass connection: NAME \(or set default_database/,
  );

  const withDefault = setup(undefined, {
    databases: { a: { type: "sqlite", path: "a.db" }, b: { type: "sqlite", path: "b.db" } },
    default_database: "b",
  });
  assert.equal(resolveConnection(withDefault.ws).name, "b");
  const badDefault = setup(undefined, { databases: { a: { type: "sqlite", path: "a.db" } }, default_database: "zz" });
  assert.throws(() => resolveConnection(badDefault.ws), /default_database names "zz", which is not configured/);

  const only = setup(undefined, undefined, { SQLITE_DB: "x.db" });
  assert.equal(resolveConnection(only.ws).name, "sqlite");

  const none = setup();
  assert.throws(
    () => resolveConnection(none.ws),
    /no database connection is configured\. Configure one in ~\/\.config\/rt\/config\.json .*\.rt\/config\.json .* SQLITE_DB; DATABASE_URL or PGHOST/,
  );
});

test("a configuration entry wins over the environment's connection of the same name", () => {
  const { ws } = setup(
    undefined,
    { databases: { sqlite: { type: "sqlite", path: "cfg.db" } } },
    { SQLITE_DB: "/env.db" },
  );
  const c = resolveConnection(ws, "sqlite");
  assert.equal(c.engine === "sqlite" && c.path, path.join(ws.root, "cfg.db"));
});

test("password_env: read when the connection is used; a missing variable is named", () => {
  const { ws } = setup(undefined, {
    databases: { wh: { type: "postgres", host: "h", user: "u", password_env: "WH_PASSWORD" } },
  });
  assert.throws(
    () => resolveConnection(ws, "wh"),
    /its password comes from the environment variable WH_PASSWORD, which is not set/,
  );
  const ok = setup(
    undefined,
    { databases: { wh: { type: "postgres", host: "h", user: "u", password_env: "WH_PASSWORD" } } },
    { WH_PASSWORD: "s3cret" },
  );
  const c = resolveConnection(ok.ws, "wh");
  assert.equal(c.engine === "postgres" && c.password, "s3cret");
});

test("the SQL tools report configuration problems as tool errors", async () => {
  const { root, home } = setup(undefined, {
    databases: { a: { type: "sqlite", path: "a.db" }, b: { type: "sqlite", path: "b.db" } },
  });
  const ws = createWorkspace({ root, env: { HOME: home } });
  const r = await callTool(ws, "sql_query", { sql: "SELECT 1", connection: "c" });
  assert.equal(r.success, false);
  assert.match(r.error!, /unknown connection "c"; configured connections: a \(sqlite/);
  const t = await callTool(ws, "sql_tables", {});
  assert.match(t.error!, /2 connections are configured; pass connection: NAME/);
  const broken = setup(undefined, "{");
  const r2 = await callTool(createWorkspace({ root: broken.root, env: { HOME: broken.home } }), "sql_describe", {
    table: "t",
  });
  assert.match(r2.error!, /configuration error: .*config\.json: not valid JSON/);
});
