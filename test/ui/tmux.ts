// A real terminal for the full-screen UI's tests: tmux, on a server of its
// own (its own socket, no user configuration), typed into with send-keys and
// read with capture-pane.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { TestContext } from "node:test";

let serial = 0;

export class Tmux {
  private readonly socket = `rt-test-${process.pid}-${++serial}`;

  /** The tmux server's socket name (-L), for commands this class has no method for. */
  get socketName(): string {
    return this.socket;
  }

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  private tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], {
      encoding: "utf8",
      ...(env ? { env } : {}),
    });
  }

  /** Starts `command` (a shell command line) in a new session; the server is killed when the test ends. */
  start(t: TestContext, command: string, env: NodeJS.ProcessEnv, cwd: string): void {
    const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
    this.tmux(
      ["new-session", "-d", "-s", "rt", "-x", String(this.width), "-y", String(this.height), "-c", cwd, command],
      clean,
    );
    const socketPath = this.tmux(["display-message", "-p", "#{socket_path}"]).trim();
    t.after(() => {
      spawnSync("tmux", ["-L", this.socket, "kill-server"]);
      fs.rmSync(socketPath, { force: true });
    });
  }

  /** Keys by tmux name (Enter, Escape, C-c, PageUp, BSpace...), each its own send. */
  keys(...keys: string[]): void {
    for (const k of keys) this.tmux(["send-keys", "-t", "rt", k]);
  }

  /** Text typed as it is (no key names). */
  type(text: string): void {
    this.tmux(["send-keys", "-t", "rt", "-l", text]);
  }

  /** The screen as text; with escapes (colours) when `escapes`. */
  screen(escapes = false): string {
    return this.tmux(["capture-pane", "-p", "-t", "rt", ...(escapes ? ["-e"] : [])]);
  }

  /** A tmux format of the pane: #{alternate_on}, #{mouse_any_flag}, #{cursor_flag}... */
  format(f: string): string {
    return this.tmux(["display-message", "-p", "-t", "rt", f]).trim();
  }

  resize(width: number, height: number): void {
    this.tmux(["resize-window", "-t", "rt", "-x", String(width), "-y", String(height)]);
  }

  /**
   * Waits until the screen matches `re` (or a predicate), and returns the screen. The timeout is a bound
   * for a loaded machine (two test files at a time on two cores), not a pause: the wait ends when the
   * screen is there.
   */
  async waitFor(re: RegExp | ((screen: string) => boolean), timeoutMs = 60_000): Promise<string> {
    const test = typeof re === "function" ? re : (s: string) => re.test(s);
    const start = Date.now();
    for (;;) {
      const s = this.screen();
      if (test(s)) return s;
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${re}; the screen:\n${s}`);
      // A capture is one short tmux call: asked often, a wait ends soon after the screen is there.
      await new Promise((r) => setTimeout(r, 40));
    }
  }
}

/** What changes from run to run (session IDs, token counts, seconds) made constant, so screens compare. */
export function normalizeScreen(screen: string): string {
  return screen
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")
    .replace(/\b\d{8}-\d{6}-[0-9a-f]+\b/g, "<session>")
    .replace(/\d+(\.\d+)?k? in \/ \d+(\.\d+)?k? out/g, "<n> in / <n> out")
    .replace(/context \d+%/g, "context <n>%")
    .replace(/\b\d{1,3}(,\d{3})+\b/g, "<n>")
    .replace(/\b\d+ (in|out|input|output)\b/g, "<n> $1")
    .replace(/\b\d+s\b/g, "<n>s")
    .replace(/\/tmp\/[\w.-]+/g, "<tmp>");
}

/**
 * Compares the lines of `screen` that match `keys` with those of the fixture
 * (test/fixtures/tui/NAME.txt, a screen captured from the scripted server):
 * each key must find a line in both, and the two lines must be the same.
 * RT_UPDATE_TUI_FIXTURES=1 writes the fixture from this screen instead.
 */
export function checkFixture(fixtureDir: string, name: string, screen: string, keys: RegExp[]): string[] {
  const file = path.join(fixtureDir, `${name}.txt`);
  const live = normalizeScreen(screen);
  if (process.env.RT_UPDATE_TUI_FIXTURES === "1") fs.writeFileSync(file, live.replace(/\n+$/, "\n"));
  const fixture = fs.readFileSync(file, "utf8").split("\n");
  const problems: string[] = [];
  for (const k of keys) {
    const a = live.split("\n").find((l) => k.test(l));
    const b = fixture.find((l) => k.test(l));
    if (a === undefined) problems.push(`${k}: no such line on the screen`);
    else if (b === undefined) problems.push(`${k}: no such line in ${file}`);
    else if (a !== b) problems.push(`${k}: screen has ${JSON.stringify(a)}, fixture ${JSON.stringify(b)}`);
  }
  return problems;
}
