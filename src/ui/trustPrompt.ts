// The one-time question `rt run` and `rt chat` ask on a terminal when the
// folder's `.rt/config.json` holds settings that wait for trust, or it has
// extension files (.mcp.json, .rt/tools, commands, agents) not trusted as they
// are now; the question shows what changed and what they would run (as Claude Code
// and Codex ask before they use a folder). It is asked before anything reads
// the configuration for real or talks to a server. "y" records trust as
// `rt trust` does; anything else (or the end of input) leaves the folder
// untrusted: those settings are ignored and named on standard error. Without a
// terminal on standard input, output and error, nothing is asked.
import readline from "node:readline";
import { ConfigError, inspectProject } from "../base/config.js";
import { settingLines, shellQuotePath } from "../base/configTrust.js";
import { TrustStoreError } from "../base/trustStore.js";
import { recordTrust } from "../workspace/trustRecords.js";
import { pinExtensionFiles } from "../base/extensionPins.js";

export interface TrustQuestionIo {
  /** Shows `question` and resolves with the line typed, null at the end of input, "interrupt" on Ctrl-C. */
  ask(question: string): Promise<string | null | "interrupt">;
  write(s: string): void;
}

/** The terminal: standard input, output and error must all be one (the question goes to standard error). */
export function terminalAvailable(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true && process.stderr.isTTY === true;
}

export function terminalQuestionIo(): TrustQuestionIo {
  return {
    write: (s) => void process.stderr.write(s),
    ask: (question) =>
      new Promise((resolve) => {
        const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
        let done = false;
        const finish = (answer: string | null | "interrupt") => {
          if (done) return;
          done = true;
          rl.close();
          resolve(answer);
        };
        rl.on("SIGINT", () => {
          process.stderr.write("\n");
          finish("interrupt");
        });
        rl.on("close", () => finish(null));
        rl.question(question, (line) => finish(line));
      }),
  };
}

/** interrupted: Ctrl-C at the question; the command stops (exit 130). */
export type TrustAnswer = "not-needed" | "trusted" | "declined" | "interrupted";

/**
 * Asks whether to trust the folder when its project file holds keys that wait
 * for trust and it is not trusted as it is now. A broken configuration is left
 * for the command itself to report.
 */
export async function confirmTrust(
  ws: { root: string; env: NodeJS.ProcessEnv },
  io: TrustQuestionIo,
): Promise<TrustAnswer> {
  let inspection;
  try {
    inspection = inspectProject(ws);
  } catch (e) {
    if (e instanceof ConfigError) return "not-needed";
    throw e;
  }
  const t = inspection.trust;
  if (t.storeProblem) return "not-needed";
  const configWaits = t.state !== "trusted" && t.untrustedKeys.length > 0;
  const extensionsWait =
    t.extensions.state !== "trusted" && Object.keys(t.extensions.pins ?? pinExtensionFiles(t.root)).length > 0;
  if (!configWaits && !extensionsWait) return "not-needed";
  const q = shellQuotePath(t.root);
  // Loaded only when there is a question to ask (it parses YAML): most starts never need it.
  const { formatInventory, trustInventory } = await import("./trustInventory.js");
  const inventory = trustInventory(inspection, ws.env);
  const head = !extensionsWait
    ? t.state === "changed"
      ? `rt: ${q}/.rt/config.json changed since you trusted this folder. These settings wait until you trust it again:\n`
      : `rt: ${q}/.rt/config.json has settings that apply only in a folder you trust:\n`
    : inventory.wasTrusted
      ? `rt: ${q} changed since you trusted it. Its settings and extension files wait until you trust it again:\n`
      : `rt: ${q} has settings or extension files that apply only in a folder you trust:\n`;
  io.write(
    `\n${head}${configWaits ? settingLines(t.untrustedKeys) : ""}${formatInventory(inventory)}` +
      "They can run programs, send your prompts, files and API keys to other servers, reach databases, or let commands run without asking.\n",
  );
  const answer = await io.ask(
    "Do you trust the files in this folder? Trust only a folder whose contents you know. [y/N] ",
  );
  if (answer === "interrupt") return "interrupted";
  if (answer === null || !/^\s*(y|yes)\s*$/i.test(answer)) {
    io.write(`Not trusted: those settings are ignored (rt trust ${q} trusts it later).\n\n`);
    return "declined";
  }
  try {
    recordTrust(t.root, t.digest, ws.env);
  } catch (e) {
    if (e instanceof TrustStoreError) {
      io.write(`rt: could not record trust: ${e.message}; the settings are ignored\n`);
      return "declined";
    }
    throw e;
  }
  io.write(`Trusted ${q} (rt untrust ${q} revokes it).\n\n`);
  return "trusted";
}
