// Process groups started by the shell tools. Every command runs as the leader
// of its own process group (spawn's `detached`), so a timeout or kill_shell
// can end the command and everything it started with one kill(-pgid). The
// groups still alive when this process exits are killed too: on a normal exit
// ('exit' event), and on SIGINT/SIGTERM/SIGHUP when nothing else handles them.
// (Sandboxed commands also die with rt through bubblewrap's --die-with-parent,
// even when rt itself is killed with SIGKILL.)

const live = new Set<number>();
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let exitHookInstalled = false;
const signalHandlers = new Map<NodeJS.Signals, () => void>();

/** Sends `signal` to the whole process group led by `pid`; false when it is already gone. */
export function killGroup(pid: number, signal: NodeJS.Signals = "SIGKILL"): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

function killAll(): void {
  for (const pid of live) killGroup(pid, "SIGKILL");
  live.clear();
}

function installSignalHandlers(): void {
  for (const sig of SIGNALS) {
    if (signalHandlers.has(sig)) continue;
    const handler = () => {
      // Only when we are the only listener is the process about to die of this
      // signal; then kill our groups and let the signal do what it would have.
      if (process.listenerCount(sig) > 1) return;
      killAll();
      uninstallSignalHandlers();
      process.kill(process.pid, sig);
    };
    signalHandlers.set(sig, handler);
    process.on(sig, handler);
  }
}

function uninstallSignalHandlers(): void {
  for (const [sig, handler] of signalHandlers) process.removeListener(sig, handler);
  signalHandlers.clear();
}

export function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    process.on("exit", killAll);
    exitHookInstalled = true;
  }
  live.add(pid);
  if (live.size === 1) installSignalHandlers();
}

export function untrackGroup(pid: number): void {
  live.delete(pid);
  if (live.size === 0) uninstallSignalHandlers();
}

/** Process groups currently alive (for tests and diagnostics). */
export function liveGroups(): number[] {
  return [...live];
}
