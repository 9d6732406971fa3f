// The attack corpus's parts (test/security/trust-*.test.ts): malicious
// repositories, a separate user configuration per test (the real one is never
// touched), listeners playing the attacker that record every connection and
// every byte, and a pseudo-terminal for the trust question.
//
//   - attacker HTTP: a TCP listener that records each connection's raw bytes and
//     relays them to a scripted model server (test/llm-server.ts), so that once
//     the folder is trusted the configured requests reach it and get real answers;
//   - attacker PostgreSQL: speaks just enough of the protocol to ask for a
//     cleartext password (AuthenticationCleartextPassword), records it, and
//     refuses the login;
//   - nothing else is a stand-in: the CLI is the built dist/cli.js.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { spawn } from "node:child_process";
import { startLlmServer, type LlmServer, type LlmServerOptions } from "../llm-server.ts";
import { CLI, tempTree } from "../helpers.ts";
import { projectDigest } from "../../src/base/config.ts";
import { recordTrust } from "../../src/workspace/trustRecords.ts";

/** Records trust of `root` for its `.rt/config.json` as it is now, as `rt trust` would (no validation: tests also trust broken files). */
export function trustFolder(root: string, env: NodeJS.ProcessEnv): void {
  const real = fs.realpathSync(root);
  const file = path.join(real, ".rt", "config.json");
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const data = text.trim() === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  recordTrust(real, projectDigest(data), env);
}

/** A home and configuration directory of its own, so no test reads or writes the real user's. */
export function isolatedUser(userConfig?: unknown): { HOME: string; XDG_CONFIG_HOME: string } {
  const home = tempTree({}, "rt-trust-home-");
  const xdg = path.join(home, ".config");
  fs.mkdirSync(path.join(xdg, "rt"), { recursive: true, mode: 0o700 });
  if (userConfig !== undefined) fs.writeFileSync(path.join(xdg, "rt", "config.json"), JSON.stringify(userConfig));
  return { HOME: home, XDG_CONFIG_HOME: xdg };
}

/** A repository as a stranger would publish it: git, a README, a committed .rt/config.json, maybe AGENTS.md. */
export function maliciousRepo(config: unknown, extra: Record<string, string> = {}): string {
  const root = tempTree(
    {
      "README.md": "# innocent project\n",
      ...extra,
      ".rt/config.json": typeof config === "string" ? config : JSON.stringify(config, null, 2),
    },
    "rt-evil-repo-",
  );
  fs.mkdirSync(path.join(root, ".git"));
  return root;
}

export interface RecordingListener {
  readonly port: number;
  /** host:port */
  readonly address: string;
  /** Every connection's bytes, in order of arrival. */
  readonly connections: Buffer[];
  /** All bytes received, as text. */
  text(): string;
  reset(): void;
  close(): Promise<void>;
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
  });
}

function closeServer(server: net.Server, sockets: Set<net.Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The attacker's HTTP host: records raw bytes, relays to its own scripted model server. */
export interface AttackerHttp extends RecordingListener {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** The model server behind it (script replies there; its `requests` are the parsed view). */
  readonly llm: LlmServer;
}

export async function startAttackerHttp(
  opts: LlmServerOptions = { models: [{ name: "test-model", contextLength: 32768 }] },
): Promise<AttackerHttp> {
  const llm = await startLlmServer(opts);
  const connections: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    const index = connections.push(Buffer.alloc(0)) - 1;
    const upstream = net.connect(llm.port, "127.0.0.1");
    sockets.add(upstream);
    client.on("data", (chunk: Buffer) => {
      connections[index] = Buffer.concat([connections[index], chunk]);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  });
  const port = await listen(server);
  return {
    port,
    address: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    llm,
    connections,
    text: () => Buffer.concat(connections).toString("latin1"),
    reset: () => {
      connections.length = 0;
      llm.reset();
    },
    close: async () => {
      await closeServer(server, sockets);
      await llm.close();
    },
  };
}

/** The attacker's PostgreSQL host: asks every client for a cleartext password (or `authCode`'s secret) and records what it sends. */
export interface AttackerPg extends RecordingListener {
  /** Passwords received (PasswordMessage bodies). */
  readonly passwords: string[];
  /** Startup parameters of each connection (user, database...). */
  readonly startups: Record<string, string>[];
}

export async function startAttackerPg(opts: { authCode?: number } = {}): Promise<AttackerPg> {
  const authCode = opts.authCode ?? 3;
  const connections: Buffer[] = [];
  const passwords: string[] = [];
  const startups: Record<string, string>[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    const index = connections.push(Buffer.alloc(0)) - 1;
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on("data", (chunk: Buffer) => {
      connections[index] = Buffer.concat([connections[index], chunk]);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const len = pending.readUInt32BE(0);
          if (pending.length < len) return;
          const code = pending.readUInt32BE(4);
          const body = pending.subarray(8, len);
          pending = pending.subarray(len);
          if (code === 80877103) {
            socket.write("N"); // SSLRequest: no TLS here
            continue;
          }
          started = true;
          const parts = body.toString("utf8").split("\0");
          const params: Record<string, string> = {};
          for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i]) params[parts[i]] = parts[i + 1];
          startups.push(params);
          const auth = Buffer.alloc(9);
          auth.write("R", 0);
          auth.writeUInt32BE(8, 1);
          auth.writeUInt32BE(authCode, 5); // 3: AuthenticationCleartextPassword (12: Vertica's OAuth token request)
          socket.write(auth);
          continue;
        }
        if (pending.length < 5) return;
        const type = String.fromCharCode(pending[0]);
        const len = pending.readUInt32BE(1);
        if (pending.length < 1 + len) return;
        const body = pending.subarray(5, 1 + len);
        pending = pending.subarray(1 + len);
        if (type === "p") {
          passwords.push(body.toString("utf8").replace(/\0$/, ""));
          const fields = Buffer.from("SFATAL\0C28P01\0Mpassword authentication failed (attacker)\0\0", "utf8");
          const err = Buffer.alloc(5);
          err.write("E", 0);
          err.writeUInt32BE(4 + fields.length, 1);
          socket.end(Buffer.concat([err, fields]));
          return;
        }
      }
    });
  });
  const port = await listen(server);
  return {
    port,
    address: `127.0.0.1:${port}`,
    connections,
    passwords,
    startups,
    text: () => Buffer.concat(connections).toString("latin1"),
    reset: () => {
      connections.length = 0;
      passwords.length = 0;
      startups.length = 0;
    },
    close: () => closeServer(server, sockets),
  };
}

/** Fake secrets in the user's environment: none of them may reach an attacker. */
export const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-SECRET-anthropic-0123456789",
  OPENAI_API_KEY: "sk-SECRET-openai-0123456789",
  GITHUB_TOKEN: "ghp_SECRET_github_0123456789",
  PGPASSWORD: "pg-SECRET-password-0123456789",
  OPENROUTER_API_KEY: "sk-or-SECRET-0123456789",
} as const;

/** Every secret value found in `text`. */
export function secretsIn(text: string): string[] {
  return Object.values(SECRETS).filter((s) => text.includes(s));
}

export interface PtyResult {
  /** Everything the terminal showed (stdout and stderr together, as on a terminal). */
  output: string;
  code: number | null;
}

/**
 * Runs `rt ARGS` with standard input, output and error on a pseudo-terminal
 * (Python's pty module). `steps`: [text to wait for, keys to type] in order,
 * each typed once its text has appeared after the previous step's.
 */
export function rtOnTerminal(
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; steps?: Array<[string, string]>; timeoutMs?: number },
): Promise<PtyResult> {
  // Each answer is typed once its prompt has appeared (after the previous answer); the
  // terminal's output is read until the child closes it (EIO) or the deadline passes.
  const script = `
import os, pty, sys, select, time, json
args = json.loads(sys.argv[1]); steps = json.loads(sys.argv[2]); deadline = time.time() + float(sys.argv[3])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[0], args)
out = b""; mark = 0; timed_out = True
while time.time() < deadline:
    if steps and steps[0][0].encode() in out[mark:]:
        mark = out.index(steps[0][0].encode(), mark) + len(steps[0][0].encode())
        os.write(fd, steps[0][1].encode()); steps.pop(0)
        continue
    r, _, _ = select.select([fd], [], [], 0.1)
    if fd in r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            timed_out = False; break
        if not data:
            timed_out = False; break
        out += data
if timed_out:
    try: os.kill(pid, 9)
    except Exception: pass
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out + (b"\\n[timed out]\\n" if timed_out else b"")); sys.stdout.flush()
sys.exit(124 if timed_out else (os.waitstatus_to_exitcode(status) & 0xff))
`;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env }))
    if (v !== undefined && k !== "RT_ROOT") env[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(
      "python3",
      [
        "-c",
        script,
        JSON.stringify([process.execPath, CLI, ...args]),
        JSON.stringify(opts.steps ?? []),
        String((opts.timeoutMs ?? 60_000) / 1000),
      ],
      { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ output, code }));
  });
}
