// The PostgreSQL test database: tables with data, a view, a schema, a
// SECURITY DEFINER function and a procedure that delete, dblink and adminpack,
// and the SELECT-only role docs/databases.md recommends. Plus a checksum of
// everything an attempt could change.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { PgServer } from "./pgServer.ts";

export const READER = "rt_reader";

/** The README's SELECT-only role, for database `app` (kept in sync with docs/databases.md by a test). */
export const READER_ROLE_SQL = `CREATE ROLE rt_reader LOGIN PASSWORD 'change-me';
ALTER ROLE rt_reader SET default_transaction_read_only = on;
REVOKE ALL ON DATABASE app FROM PUBLIC;
GRANT CONNECT ON DATABASE app TO rt_reader;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO rt_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO rt_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO rt_reader;`;

export async function adminClient(server: PgServer, database = "app"): Promise<pg.Client> {
  const c = new pg.Client({ host: server.host, port: server.port, user: server.admin, database });
  await c.connect();
  return c;
}

export async function setupPgFixture(server: PgServer): Promise<void> {
  const boot = await adminClient(server, "postgres");
  await boot.query("CREATE DATABASE app");
  await boot.end();
  const c = await adminClient(server);
  await c.query(`
    CREATE TABLE accounts (id serial PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL DEFAULT 0, created timestamptz DEFAULT '2024-01-01 00:00:00+00');
    INSERT INTO accounts (owner, balance) SELECT 'user' || i, i * 1.5 FROM generate_series(1, 250) AS i;
    CREATE TABLE audit (id bigserial PRIMARY KEY, note text);
    INSERT INTO audit (note) VALUES ('first'), (NULL);
    CREATE VIEW rich AS SELECT * FROM accounts WHERE balance > 300;
    CREATE SCHEMA sales;
    CREATE TABLE sales.orders (id integer PRIMARY KEY, account_id integer REFERENCES accounts (id), total numeric);
    INSERT INTO sales.orders VALUES (1, 1, 9.99), (2, 2, 19.5);
    CREATE FUNCTION wipe() RETURNS integer LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN DELETE FROM accounts; RETURN 1; END $$;
    CREATE PROCEDURE purge_accounts() LANGUAGE sql AS $$ DELETE FROM accounts $$;
    CREATE EXTENSION dblink;
    CREATE EXTENSION adminpack;
  `);
  await c.query(READER_ROLE_SQL.replace("PASSWORD 'change-me'", ""));
  await c.query("GRANT USAGE ON SCHEMA sales TO rt_reader; GRANT SELECT ON ALL TABLES IN SCHEMA sales TO rt_reader");
  await c.end();
}

/** One hash over the data, the catalog, the roles, settings, sequences, large objects and the server's auto.conf. */
export async function pgChecksum(server: PgServer): Promise<string> {
  const c = await adminClient(server);
  try {
    const r = await c.query(`
      SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS sum FROM (
        SELECT 'accounts:' || md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) AS x FROM accounts t
        UNION ALL SELECT 'audit:' || md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM audit t
        UNION ALL SELECT 'orders:' || md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM sales.orders t
        UNION ALL SELECT 'rel:' || n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || coalesce(c.relacl::text, '') || ':' || coalesce(obj_description(c.oid, 'pg_class'), '')
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
        UNION ALL SELECT 'proc:' || p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
        UNION ALL SELECT 'role:' || rolname || rolsuper::text || rolcanlogin::text || rolcreaterole::text || rolcreatedb::text FROM pg_roles
        UNION ALL SELECT 'rolesetting:' || coalesce(array_to_string(setconfig, ','), '') FROM pg_db_role_setting
        UNION ALL SELECT 'db:' || datname || coalesce(datacl::text, '') FROM pg_database
        UNION ALL SELECT 'ext:' || extname FROM pg_extension
        UNION ALL SELECT 'lo:' || oid::text FROM pg_largeobject_metadata
        UNION ALL SELECT 'seq:' || last_value::text FROM accounts_id_seq
        UNION ALL SELECT 'seq2:' || last_value::text FROM audit_id_seq
        UNION ALL SELECT 'prepared:' || gid FROM pg_prepared_xacts
      ) s`);
    const auto = fs.readFileSync(path.join(server.dataDir, "postgresql.auto.conf"), "utf8");
    return `${r.rows[0].sum}/${auto.length}:${auto.replace(/\s+/g, " ")}`;
  } finally {
    await c.end();
  }
}
