// A real PostgreSQL server for the tests: Debian's initdb + pg_ctl in a temp
// directory, on a free loopback port, run as a non-root user when the tests
// run as root (postgres refuses root). Stopped by stop(), or at exit.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import { execFileSync, spawnSync } from "node:child_process";

export interface PgServer {
  host: string;
  port: number;
  /** The bootstrap superuser. */
  admin: string;
  dataDir: string;
  /** Runs as this OS user (root runs the server as another user). */
  osUser?: string;
  url(user: string, database?: string): string;
  stop(): void;
}

/** The newest PostgreSQL server binaries installed (Debian layout), or undefined. */
export function findPgBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return undefined;
  const versions = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], "bin") : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** An OS user postgres may run as when we are root: `postgres` (Debian's package creates it), else `nobody`. */
function serverUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const u of ["postgres", "nobody"]) {
    if (spawnSync("id", ["-u", u]).status === 0) return u;
  }
  throw new Error("running as root and no postgres or nobody user exists to run the PostgreSQL server");
}

function uidGid(user: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim()),
    gid: Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim()),
  };
}

export async function startPostgres(): Promise<PgServer> {
  const bin = findPgBin();
  if (!bin)
    throw new Error(
      "PostgreSQL server binaries not found under /usr/lib/postgresql (scripts/ensure-test-deps.sh installs Debian's postgresql)",
    );
  const osUser = serverUser();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "rt-pg-")));
  const dataDir = path.join(dir, "data");
  const sockDir = path.join(dir, "sock");
  fs.mkdirSync(sockDir);
  if (osUser) {
    const { uid, gid } = uidGid(osUser);
    for (const p of [dir, sockDir]) fs.chownSync(p, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const full = osUser
      ? (["runuser", ["-u", osUser, "--", path.join(bin, cmd), ...args]] as const)
      : ([path.join(bin, cmd), args] as const);
    const r = spawnSync(full[0], full[1] as string[], { encoding: "utf8", cwd: dir, timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const admin = "rt_admin";
  run("initdb", ["-D", dataDir, "-U", admin, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const stop = () => {
    spawnSync(
      osUser ? "runuser" : path.join(bin, "pg_ctl"),
      osUser
        ? ["-u", osUser, "--", path.join(bin, "pg_ctl"), "-D", dataDir, "-m", "immediate", "-w", "stop"]
        : ["-D", dataDir, "-m", "immediate", "-w", "stop"],
      {
        stdio: "ignore",
        timeout: 60_000,
      },
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  run("pg_ctl", [
    "-D",
    dataDir,
    "-l",
    path.join(dir, "server.log"),
    "-w",
    "-t",
    "60",
    "-o",
    `-p ${port} -k ${sockDir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
    "start",
  ]);
  let stopped = false;
  const stopOnce = () => {
    if (stopped) return;
    stopped = true;
    stop();
  };
  process.on("exit", stopOnce);
  return {
    host: "127.0.0.1",
    port,
    admin,
    dataDir,
    osUser,
    url: (user, database = "postgres") => `postgres://${user}@127.0.0.1:${port}/${database}`,
    stop: stopOnce,
  };
}
