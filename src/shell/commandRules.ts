// The per-command half of the structural check (see check.ts): given a
// command as words, refuse what writes, deletes, escalates or reaches the
// network, naming the construct. Tables first, then the few commands whose
// options need reading (find, sed, awk, git, tar, ...). Commands not named
// here are allowed: the sandbox is the guarantee, this is feedback.
import { refuse, isScratchPath, dangerousVariable, type CheckContext, type Word } from "./checkBase.js";

// ---------------------------------------------------------------------------
// Reading options the way getopt does.

interface OptionSpec {
  /** Short options that take a value ("-o FILE", "-oFILE"). */
  short?: string;
  /** Long options that take a value ("--output FILE", "--output=FILE"). */
  long?: string[];
  /** Stop at the first operand (the rest belongs to a subcommand or a wrapped command). */
  stopAtOperand?: boolean;
}

interface Scanned {
  /** Options in order: "-x" or "--name", with their value when they take one. */
  options: Array<{ name: string; value?: Word }>;
  operands: Word[];
  /** With stopAtOperand: the words from the first operand on. */
  rest: Word[];
}

function scan(args: Word[], spec: OptionSpec = {}): Scanned {
  const shortValue = spec.short ?? "";
  const longValue = new Set(spec.long ?? []);
  const out: Scanned = { options: [], operands: [], rest: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null || a === "-" || !a.startsWith("-")) {
      if (spec.stopAtOperand) {
        out.rest = args.slice(i);
        out.operands = out.rest;
        return out;
      }
      out.operands.push(a);
      continue;
    }
    if (a === "--") {
      out.operands.push(...args.slice(i + 1));
      out.rest = args.slice(i + 1);
      return out;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq === -1 ? a : a.slice(0, eq);
      if (eq !== -1) out.options.push({ name, value: a.slice(eq + 1) });
      else if (longValue.has(name)) out.options.push({ name, value: args[++i] ?? null });
      else out.options.push({ name });
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (shortValue.includes(c)) {
        const attached = a.slice(j + 1);
        out.options.push({ name: `-${c}`, value: attached !== "" ? attached : (args[++i] ?? null) });
        break;
      }
      out.options.push({ name: `-${c}` });
    }
  }
  return out;
}

function has(s: Scanned, ...names: string[]): boolean {
  return s.options.some((o) => names.includes(o.name));
}

function valuesOf(s: Scanned, ...names: string[]): Word[] {
  return s.options.filter((o) => names.includes(o.name)).map((o) => o.value ?? null);
}

function shown(w: Word): string {
  return w === null ? "(computed at run time)" : w;
}

// ---------------------------------------------------------------------------
// Tables.

const ESCALATION: Record<string, string> = {};
for (const n of [
  "sudo",
  "su",
  "doas",
  "pkexec",
  "runuser",
  "run0",
  "setpriv",
  "capsh",
  "chroot",
  "nsenter",
  "unshare",
  "systemd-run",
  "machinectl",
  "newgrp",
  "sg",
  "bwrap",
  "firejail",
  "setcap",
  "setenforce",
  "ldconfig",
]) {
  ESCALATION[n] = "runs commands with other privileges or in another namespace (privilege escalation)";
}
for (const n of [
  "useradd",
  "userdel",
  "usermod",
  "groupadd",
  "groupdel",
  "groupmod",
  "adduser",
  "deluser",
  "addgroup",
  "delgroup",
  "passwd",
  "chpasswd",
  "chage",
  "chsh",
  "chfn",
  "gpasswd",
  "vipw",
  "vigr",
  "visudo",
]) {
  ESCALATION[n] = "changes users, groups or passwords";
}
for (const n of [
  "insmod",
  "rmmod",
  "modprobe",
  "kexec",
  "umount",
  "swapon",
  "swapoff",
  "fdisk",
  "sfdisk",
  "cfdisk",
  "parted",
  "wipefs",
  "mkswap",
  "losetup",
  "cryptsetup",
  "dmsetup",
  "blockdev",
  "hdparm",
  "iptables",
  "ip6tables",
  "nft",
  "ebtables",
  "ufw",
  "firewall-cmd",
]) {
  ESCALATION[n] = "changes the kernel, disks or firewall";
}

const ALWAYS_REFUSED: Record<string, string> = {
  ...ESCALATION,
  kill: "sends signals to processes; a read-only session does not stop processes",
  pkill: "sends signals to processes; a read-only session does not stop processes",
  killall: "sends signals to processes; a read-only session does not stop processes",
  skill: "sends signals to processes",
  shutdown: "stops the machine",
  reboot: "restarts the machine",
  halt: "stops the machine",
  poweroff: "stops the machine",
  telinit: "changes the run level",
  at: "schedules commands to run later",
  atrm: "changes scheduled jobs",
  batch: "schedules commands to run later",
  coproc: "runs a command in the background",
  ssh: "runs commands on another machine, which the sandbox cannot make read-only",
  scp: "copies files to or from another machine",
  sftp: "copies files to or from another machine",
  rsync: "copies and deletes files",
  mosh: "runs commands on another machine",
  mail: "sends mail (data leaving the machine)",
  mailx: "sends mail (data leaving the machine)",
  sendmail: "sends mail (data leaving the machine)",
  mutt: "sends mail (data leaving the machine)",
  logger: "writes to the system log",
  wall: "writes to other users' terminals",
  write: "writes to another user's terminal",
  tmux: "controls a terminal multiplexer whose commands run outside this one",
  screen: "controls a terminal multiplexer whose commands run outside this one",
  script: "records a terminal session into a file",
  npx: "downloads and runs a package",
  pnpx: "downloads and runs a package",
  bunx: "downloads and runs a package",
  uvx: "downloads and runs a package",
  pipx: "installs and runs packages",
  enable: "loads shell builtins from shared libraries",
  zip: "creates or changes archives",
  rar: "creates archives",
  split: "writes its pieces into new files",
  csplit: "writes its pieces into new files",
  flock: "creates lock files",
  "dbus-send": "calls system services",
  busctl: "calls system services",
  gdbus: "calls system services",
  lp: "prints documents",
  lpr: "prints documents",
};

const EDITORS = new Set([
  "vi",
  "vim",
  "nvim",
  "view",
  "vimdiff",
  "nano",
  "pico",
  "emacs",
  "emacsclient",
  "ed",
  "ex",
  "red",
  "joe",
  "jed",
  "micro",
  "mcedit",
  "kak",
  "hx",
  "ne",
]);

/** Commands that only write; allowed when every path they write is a scratch path (/tmp, /dev/null). */
interface WriterSpec {
  what: string;
  options?: OptionSpec;
  /** The first operand is not a path (chmod MODE, chown OWNER, truncate has -s). */
  skipFirst?: boolean;
  /** Only the destination is written (cp, ln, install: the last operand, or -t DIR). */
  destOnly?: boolean;
}
const WRITERS: Record<string, WriterSpec> = {
  rm: { what: "deletes files" },
  rmdir: { what: "deletes directories" },
  unlink: { what: "deletes a file" },
  shred: {
    what: "overwrites and deletes files",
    options: { short: "ns", long: ["--iterations", "--size", "--random-source"] },
  },
  mv: { what: "moves (renames) files", options: { short: "tS", long: ["--target-directory", "--suffix"] } },
  cp: { what: "copies files", options: { short: "tS", long: ["--target-directory", "--suffix"] }, destOnly: true },
  ln: { what: "creates links", options: { short: "tS", long: ["--target-directory", "--suffix"] }, destOnly: true },
  link: { what: "creates a link", destOnly: true },
  install: {
    what: "copies files and sets their modes",
    options: { short: "gmoStZ", long: ["--group", "--mode", "--owner", "--suffix", "--target-directory"] },
    destOnly: true,
  },
  mkdir: { what: "creates directories", options: { short: "m", long: ["--mode"] } },
  mkfifo: { what: "creates named pipes", options: { short: "m", long: ["--mode"] } },
  mknod: { what: "creates device files", options: { short: "m", long: ["--mode"] } },
  touch: { what: "creates files or changes their times", options: { short: "dtr", long: ["--date", "--reference"] } },
  truncate: { what: "truncates files", options: { short: "sr", long: ["--size", "--reference"] } },
  fallocate: { what: "allocates file space", options: { short: "lon", long: ["--length", "--offset"] } },
  chmod: { what: "changes file permissions", skipFirst: true },
  chown: { what: "changes file owners", skipFirst: true },
  chgrp: { what: "changes file groups", skipFirst: true },
  chattr: { what: "changes file attributes", skipFirst: true },
  setfacl: {
    what: "changes access control lists",
    options: { short: "mxMX", long: ["--modify", "--remove", "--set", "--set-file"] },
  },
  setfattr: { what: "changes extended attributes", options: { short: "nvx", long: ["--name", "--value", "--remove"] } },
  chcon: { what: "changes security contexts", skipFirst: true },
  patch: { what: "changes files", options: { short: "pdFiBoDrVYzg", long: ["--input", "--output", "--directory"] } },
  sponge: { what: "writes a file" },
  tee: { what: "writes its input into files" },
  mktemp: { what: "creates a temporary file", options: { short: "p", long: ["--tmpdir", "--suffix"] } },
};

/** Subcommand tables: the read-only subcommands of tools that also change things. */
interface SubcommandSpec {
  allowed: string[];
  /** Options before the subcommand that take a value. */
  options?: OptionSpec;
  /** Allowed when no subcommand is given. */
  bare?: boolean;
  what: string;
}
const SUBCOMMANDS: Record<string, SubcommandSpec> = {
  apt: {
    allowed: ["list", "show", "search", "policy", "depends", "rdepends", "showsrc"],
    what: "installs or removes packages",
  },
  "apt-get": { allowed: ["check", "changelog"], what: "installs or removes packages" },
  aptitude: { allowed: ["search", "show", "why", "why-not", "versions"], what: "installs or removes packages" },
  dnf: {
    allowed: [
      "list",
      "info",
      "search",
      "provides",
      "whatprovides",
      "repolist",
      "repoquery",
      "deplist",
      "check-update",
      "history",
    ],
    what: "installs or removes packages",
  },
  yum: {
    allowed: ["list", "info", "search", "provides", "whatprovides", "repolist", "deplist", "check-update", "history"],
    what: "installs or removes packages",
  },
  microdnf: { allowed: ["repolist"], what: "installs or removes packages" },
  zypper: {
    allowed: [
      "search",
      "se",
      "info",
      "if",
      "list-updates",
      "lu",
      "patches",
      "packages",
      "pa",
      "repos",
      "lr",
      "products",
      "pd",
      "patterns",
    ],
    what: "installs or removes packages",
  },
  apk: { allowed: ["info", "search", "list", "policy", "dot", "stats"], what: "installs or removes packages" },
  snap: {
    allowed: ["list", "info", "find", "version", "connections", "services", "changes", "tasks"],
    what: "installs or removes packages",
  },
  flatpak: {
    allowed: ["list", "info", "search", "remotes", "remote-ls", "history", "ps"],
    what: "installs or removes packages",
  },
  brew: {
    allowed: [
      "list",
      "ls",
      "info",
      "search",
      "deps",
      "uses",
      "leaves",
      "outdated",
      "config",
      "desc",
      "--prefix",
      "--cellar",
      "--cache",
      "--repository",
    ],
    what: "installs or removes packages",
  },
  pip: {
    allowed: [
      "list",
      "show",
      "freeze",
      "check",
      "help",
      "index",
      "inspect",
      "debug",
      "config list",
      "config get",
      "config debug",
    ],
    what: "installs or removes Python packages",
  },
  conda: {
    allowed: ["list", "info", "search", "env list", "config --show", "config --get"],
    what: "installs or removes packages",
  },
  mamba: { allowed: ["list", "info", "search", "env list"], what: "installs or removes packages" },
  micromamba: { allowed: ["list", "info", "search", "env list"], what: "installs or removes packages" },
  poetry: {
    allowed: ["show", "check", "about", "search", "env info", "env list"],
    what: "installs packages or changes the project",
  },
  uv: {
    allowed: ["pip list", "pip show", "pip freeze", "pip check", "pip tree", "tree", "python list", "help"],
    what: "installs packages or changes the project",
  },
  npm: {
    allowed: [
      "ls",
      "list",
      "ll",
      "la",
      "view",
      "v",
      "info",
      "show",
      "outdated",
      "explain",
      "why",
      "search",
      "s",
      "se",
      "find",
      "config get",
      "config list",
      "config ls",
      "get",
      "prefix",
      "root",
      "bin",
      "doctor",
      "help",
      "help-search",
      "fund",
      "query",
      "audit",
    ],
    options: { long: ["--prefix", "--workspace"], short: "w" },
    what: "installs packages or runs package scripts",
  },
  pnpm: {
    allowed: [
      "list",
      "ls",
      "ll",
      "why",
      "outdated",
      "audit",
      "root",
      "bin",
      "view",
      "info",
      "config get",
      "config list",
      "help",
    ],
    what: "installs packages or runs package scripts",
  },
  yarn: {
    allowed: [
      "list",
      "info",
      "why",
      "outdated",
      "audit",
      "config get",
      "config list",
      "versions",
      "workspaces info",
      "workspaces list",
      "help",
    ],
    what: "installs packages or runs package scripts",
  },
  bun: { allowed: ["pm ls", "pm bin", "pm hash", "help"], what: "installs packages or runs scripts" },
  gem: {
    allowed: [
      "list",
      "query",
      "search",
      "specification",
      "contents",
      "environment",
      "env",
      "which",
      "info",
      "help",
      "dependency",
      "outdated",
    ],
    what: "installs or removes Ruby gems",
  },
  cargo: {
    allowed: [
      "tree",
      "metadata",
      "search",
      "version",
      "locate-project",
      "pkgid",
      "verify-project",
      "read-manifest",
      "help",
    ],
    what: "builds (writing target/) or installs crates",
  },
  go: {
    allowed: ["list", "env", "version", "doc", "help", "mod graph", "mod why", "mod verify"],
    what: "builds, installs or downloads modules",
  },
  composer: {
    allowed: [
      "show",
      "info",
      "licenses",
      "outdated",
      "depends",
      "why",
      "prohibits",
      "why-not",
      "search",
      "validate",
      "diagnose",
    ],
    what: "installs packages",
  },
  systemctl: {
    allowed: [
      "status",
      "show",
      "cat",
      "list-units",
      "list-unit-files",
      "list-sockets",
      "list-timers",
      "list-jobs",
      "list-dependencies",
      "list-machines",
      "is-active",
      "is-enabled",
      "is-failed",
      "is-system-running",
      "get-default",
      "help",
    ],
    options: {
      short: "tpHMno",
      long: ["--type", "--property", "--host", "--machine", "--state", "--lines", "--output", "--root"],
    },
    bare: true,
    what: "starts, stops or changes services",
  },
  loginctl: {
    allowed: [
      "list-sessions",
      "list-users",
      "list-seats",
      "show-session",
      "show-user",
      "show-seat",
      "session-status",
      "user-status",
      "seat-status",
    ],
    bare: true,
    what: "changes login sessions",
  },
  timedatectl: {
    allowed: ["status", "show", "list-timezones", "timesync-status", "show-timesync"],
    bare: true,
    what: "changes the clock or time zone",
  },
  hostnamectl: { allowed: ["status", "hostname"], bare: true, what: "changes the host name" },
  localectl: {
    allowed: ["status", "list-locales", "list-keymaps", "list-x11-keymap-models", "list-x11-keymap-layouts"],
    bare: true,
    what: "changes the locale",
  },
  docker: {
    allowed: [
      "ps",
      "images",
      "inspect",
      "logs",
      "top",
      "port",
      "diff",
      "history",
      "version",
      "info",
      "search",
      "events",
      "stats",
      "image ls",
      "image list",
      "image inspect",
      "image history",
      "container ls",
      "container list",
      "container inspect",
      "container logs",
      "container top",
      "container port",
      "container diff",
      "network ls",
      "network inspect",
      "volume ls",
      "volume inspect",
      "system df",
      "system info",
      "context ls",
      "context show",
      "compose ps",
      "compose logs",
      "compose config",
      "compose ls",
      "compose top",
      "compose images",
    ],
    options: { short: "Hcl", long: ["--host", "--context", "--config", "--log-level"] },
    what: "creates, runs or changes containers",
  },
  kubectl: {
    allowed: [
      "get",
      "describe",
      "logs",
      "top",
      "explain",
      "version",
      "api-resources",
      "api-versions",
      "cluster-info",
      "events",
      "config view",
      "config get-contexts",
      "config current-context",
      "config get-clusters",
      "config get-users",
      "auth can-i",
      "auth whoami",
      "rollout status",
      "rollout history",
    ],
    options: {
      short: "ns",
      long: [
        "--namespace",
        "--context",
        "--cluster",
        "--kubeconfig",
        "--server",
        "--user",
        "--token",
        "--as",
        "--request-timeout",
      ],
    },
    what: "changes cluster resources",
  },
  helm: {
    allowed: [
      "list",
      "ls",
      "status",
      "get",
      "history",
      "show",
      "search",
      "version",
      "env",
      "template",
      "lint",
      "repo list",
      "plugin list",
      "dependency list",
    ],
    options: { short: "n", long: ["--namespace", "--kube-context", "--kubeconfig"] },
    what: "installs or changes releases",
  },
  terraform: {
    allowed: ["show", "output", "version", "providers", "graph", "state list", "state show", "validate"],
    what: "changes infrastructure or state",
  },
  tofu: {
    allowed: ["show", "output", "version", "providers", "graph", "state list", "state show", "validate"],
    what: "changes infrastructure or state",
  },
  svn: {
    allowed: [
      "log",
      "diff",
      "di",
      "info",
      "status",
      "st",
      "cat",
      "list",
      "ls",
      "blame",
      "annotate",
      "praise",
      "propget",
      "pg",
      "proplist",
      "pl",
      "help",
    ],
    what: "changes the working copy or repository",
  },
  hg: {
    allowed: [
      "log",
      "diff",
      "status",
      "st",
      "cat",
      "annotate",
      "blame",
      "files",
      "identify",
      "id",
      "summary",
      "sum",
      "heads",
      "branches",
      "tags",
      "paths",
      "root",
      "manifest",
      "grep",
      "help",
      "version",
      "config",
      "showconfig",
    ],
    what: "changes the working copy or repository",
  },
  crontab: { allowed: [], bare: false, what: "changes scheduled jobs (crontab -l lists them: allowed)" },
  service: { allowed: ["--status-all"], what: "starts, stops or changes services" },
};
for (const alias of ["pip3", "pip2"]) SUBCOMMANDS[alias] = SUBCOMMANDS.pip;
SUBCOMMANDS.podman = SUBCOMMANDS.docker;
SUBCOMMANDS.nerdctl = SUBCOMMANDS.docker;
SUBCOMMANDS.oc = SUBCOMMANDS.kubectl;

/** Network clients: refused without --allow-net (the sandbox has no network then). */
const NETWORK = new Set([
  "curl",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "ftp",
  "lftp",
  "tftp",
  "ping",
  "ping6",
  "traceroute",
  "traceroute6",
  "tracepath",
  "mtr",
  "dig",
  "nslookup",
  "host",
  "whois",
  "nmap",
  "http",
  "https",
  "xh",
  "aria2c",
]);

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "rbash", "fish", "csh", "tcsh"]);
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);
const COMPRESSORS = new Set([
  "gzip",
  "gunzip",
  "bzip2",
  "bunzip2",
  "xz",
  "unxz",
  "lzma",
  "unlzma",
  "zstd",
  "unzstd",
  "lz4",
  "unlz4",
  "lzop",
  "compress",
  "uncompress",
  "pigz",
  "unpigz",
  "brotli",
  "lzip",
]);

// ---------------------------------------------------------------------------
// The entry point: one command as words.

export function checkArgvRules(argv: Word[], ctx: CheckContext, via?: string): void {
  if (argv.length === 0) return;
  const first = argv[0];
  if (first === null)
    refuse(
      `${via ? `${via} runs a` : "the"} command whose name is computed at run time, so the check cannot tell what would run`,
    );
  const name = baseName(first);
  const args = argv.slice(1);
  const where = via ? ` (run by ${via})` : "";

  if (ALWAYS_REFUSED[name] !== undefined) refuse(`\`${name}\`${where} ${ALWAYS_REFUSED[name]}`);
  if (/^mkfs(\.|$)/.test(name)) refuse(`\`${name}\`${where} formats a disk`);
  if (EDITORS.has(name))
    refuse(
      `\`${name}\`${where} is an interactive editor that writes files; use rt's edit tools in a session that may edit`,
    );
  if (/^pip\d?(\.\d+)?$/.test(name) && !SUBCOMMANDS[name]) return subcommands("pip", SUBCOMMANDS.pip, args, where);
  if (/^python\d?(\.\d+)?$/.test(name)) return python(name, args, where);

  const writer = WRITERS[name];
  if (writer) return writerRule(name, writer, args, where);
  const sub = SUBCOMMANDS[name];
  if (sub) {
    if (name === "crontab") {
      if (args.length === 1 && args[0] === "-l") return;
      refuse(`\`crontab\`${where} ${sub.what}`);
    }
    if (name === "service" && args.length === 2 && args[1] === "status") return;
    if (name === "go" && args[0] === "env" && args.some((a) => a === "-w" || a === "-u"))
      refuse(`\`go env -w\`${where} changes Go's configuration file`);
    if (name === "npm" && (args.includes("fix") || (args[0] === "version" && args.length > 1)))
      refuse(`\`npm ${args.join(" ")}\`${where} changes files`);
    return subcommands(name, sub, args, where);
  }
  if (NETWORK.has(name)) {
    network(name, args, ctx, where);
    return;
  }
  if (SHELLS.has(name)) return shell(name, args, ctx, where);
  if (AWKS.has(name)) return awk(name, args, where);
  if (COMPRESSORS.has(name)) return compressor(name, args, where);

  switch (name) {
    case "busybox":
    case "toybox":
      return ctx.checkArgv(args, via ?? name);
    case "eval":
      if (args.some((a) => a === null))
        refuse(`\`eval\`${where} runs shell code computed at run time, which cannot be checked`);
      return ctx.checkScript(args.join(" "), "eval");
    case "trap":
      return trap(args, ctx);
    case "env":
      return envWrapper(args, ctx);
    case "xargs":
      return xargs(args, ctx);
    case "find":
      return find(args, ctx, where);
    case "sed":
      return sed(args, where);
    case "perl":
    case "ruby":
      return inPlaceInterpreter(name, args, where);
    case "git":
      return git(args, ctx, where);
    case "tar":
      return tar(args, where);
    case "unzip":
      return unzip(args, where);
    case "unrar":
    case "7z":
    case "7za":
      if (typeof args[0] === "string" && /^(l|lt|lb|v|vt|vb|t|p)$/.test(args[0])) return;
      return refuse(`\`${name}\`${where} creates or extracts archives (${name} l lists them)`);
    case "dpkg":
    case "rpm": {
      const reading =
        name === "dpkg"
          ? /^(-l|-L|-s|-S|-p|-c|-I|-V|--list|--listfiles|--status|--search|--print-avail|--contents|--info|--verify|--get-selections|--print-architecture|--print-foreign-architectures|--compare-versions|--version|--help)$/
          : /^(-q[a-zA-Z]*|--query|-V|--verify|--version|--help|--eval|-E|--showrc)$/;
      const first = args.find((a) => a !== null && a.startsWith("-"));
      if (typeof first === "string" && reading.test(first.split("=")[0])) return;
      return refuse(
        `\`${name} ${shown(first ?? null)}\`${where} installs, removes or changes packages (${name === "dpkg" ? "dpkg -l, -L, -s, -S" : "rpm -q, -V"} only read)`,
      );
    }
    case "sort":
      return outputOption(
        name,
        args,
        {
          short: "koSTt",
          long: [
            "--key",
            "--output",
            "--buffer-size",
            "--temporary-directory",
            "--field-separator",
            "--files0-from",
            "--random-source",
            "--compress-program",
            "--parallel",
            "--batch-size",
          ],
        },
        ["-o", "--output"],
        where,
      );
    case "uniq": {
      const s = scan(args, {
        short: "fsw",
        long: ["--skip-fields", "--skip-chars", "--check-chars", "--group", "--all-repeated"],
      });
      if (s.operands.length >= 2 && !isScratchPath(s.operands[1]))
        refuse(`\`uniq\`${where} writes its output into the file ${shown(s.operands[1])} (its second operand)`);
      return;
    }
    case "dd": {
      for (const a of args) {
        if (a === null) refuse(`\`dd\`${where} with an operand computed at run time cannot be checked`);
        if (a.startsWith("of=") && !isScratchPath(a.slice(3)))
          refuse(`\`dd of=${a.slice(3)}\`${where} writes to a file`);
      }
      return;
    }
    case "time":
      return wrapper(name, args, ctx, { short: "fo", long: ["--format", "--output"] }, 0, ["-o", "--output"]);
    case "nice":
      return wrapper(name, args, ctx, { short: "n", long: ["--adjustment"] }, 0);
    case "nohup":
    case "setsid":
    case "builtin":
    case "unbuffer":
    case "stdbuf":
      return wrapper(name, args, ctx, { short: "ioe", long: ["--input", "--output", "--error"] }, 0);
    case "exec":
      return wrapper(name, args, ctx, { short: "a" }, 0);
    case "command": {
      const s = scan(args, { stopAtOperand: true });
      if (has(s, "-v", "-V")) return; // only looks the name up
      return ctx.checkArgv(s.rest, "command");
    }
    case "timeout":
      return wrapper(name, args, ctx, { short: "sk", long: ["--signal", "--kill-after"] }, 1);
    case "ionice":
      return wrapper(
        name,
        args,
        ctx,
        { short: "cnpPu", long: ["--class", "--classdata", "--pid", "--pgid", "--uid"] },
        0,
        ["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
      );
    case "chrt":
      return wrapper(
        name,
        args,
        ctx,
        { short: "T", long: ["--sched-runtime", "--sched-period", "--sched-deadline"] },
        1,
        ["-p", "--pid"],
      );
    case "taskset":
      return wrapper(name, args, ctx, {}, 1, ["-p", "--pid"]);
    case "watch":
      return watch(args, ctx);
    case "alias": {
      if (args.some((a) => a === null || a.includes("=")))
        refuse("`alias` definitions rename commands, which the check cannot follow; write the command itself");
      return;
    }
    case "hash":
      if (args.some((a) => a === "-p")) refuse("`hash -p` changes which program a command name runs");
      return;
    case "date":
      if (
        args.some(
          (a) => a === null || a === "-s" || a.startsWith("--set") || (!a.startsWith("-") && !a.startsWith("+")),
        )
      ) {
        refuse(`\`date\`${where} with an operand sets the system clock (date +FORMAT only prints)`);
      }
      return;
    case "hostname":
      if (args.some((a) => a === null || !a.startsWith("-") || a === "-F" || a === "--file"))
        refuse(`\`hostname NAME\`${where} changes the host name`);
      return;
    case "hwclock":
      if (args.some((a) => a !== null && /^(-w|-s|--systohc|--hctosys|--set|--adjust|--systz)/.test(a)))
        refuse(`\`hwclock\`${where} sets the clock`);
      return;
    case "sysctl":
      if (
        args.some(
          (a) =>
            a === null || a.includes("=") || /^(-w|-p|--write|--load|--system)/.test(a) || /^-[a-zA-Z]*[wp]/.test(a),
        )
      ) {
        refuse(`\`sysctl\`${where} with -w, -p or NAME=VALUE changes kernel settings (sysctl NAME reads them)`);
      }
      return;
    case "mount":
      if (args.length > 0 && !(args.length === 1 && (args[0] === "-l" || args[0] === "--show-labels")))
        refuse(`\`mount\`${where} mounts filesystems (mount without arguments lists them)`);
      return;
    case "ip":
      if (
        args.some(
          (a) =>
            a !== null &&
            /^(add|del|delete|set|change|replace|flush|append|prepend|exec|up|down|netns|save|restore|monitor)$/.test(
              a,
            ),
        )
      ) {
        refuse(
          `\`ip ${args.join(" ")}\`${where} changes network configuration (ip addr, ip route, ip link show only read)`,
        );
      }
      return;
    case "ifconfig":
    case "route":
      if (args.length > 1 || args.some((a) => a === "add" || a === "del"))
        refuse(`\`${name}\`${where} with arguments changes network configuration`);
      return;
    case "journalctl":
      if (
        args.some(
          (a) =>
            a !== null &&
            /^--(rotate|vacuum-|flush|sync|relinquish-var|smart-relinquish-var|setup-keys|update-catalog)/.test(a),
        )
      )
        refuse(`\`journalctl ${args.join(" ")}\`${where} changes the journal`);
      return;
    case "make":
    case "gmake":
      if (
        !args.some(
          (a) => a !== null && /^(-n|--dry-run|--just-print|--recon|-q|--question|-p|--print-data-base)$/.test(a),
        )
      ) {
        refuse(`\`${name}\`${where} builds targets, which writes files (make -n shows what it would do)`);
      }
      return;
    case "openssl": {
      const i = args.findIndex((a) => a === "-out" || a === "-keyout");
      if (i !== -1 && !isScratchPath(args[i + 1] ?? null)) refuse(`\`openssl ${args[i]}\`${where} writes a file`);
      if (!ctx.allowNet && args[0] !== null && /^(s_client|s_server|s_time|ocsp)$/.test(args[0] ?? ""))
        refuse(
          `\`openssl ${args[0]}\`${where} needs the network, which the sandbox does not have (the user can allow it with --allow-net)`,
        );
      return;
    }
  }
}

function baseName(cmd: string): string {
  const i = cmd.lastIndexOf("/");
  return i === -1 ? cmd : cmd.slice(i + 1);
}

// ---------------------------------------------------------------------------
// Rules.

function writerRule(name: string, spec: WriterSpec, args: Word[], where: string): void {
  const s = scan(args, spec.options);
  if (name === "tee") {
    const files = s.operands;
    const bad = files.find((f) => !isScratchPath(f));
    if (bad !== undefined)
      refuse(
        `\`tee\`${where} writes its input into the file ${shown(bad)}; a read-only session cannot write files (pipe to the next command instead, or tee /tmp/...)`,
      );
    return;
  }
  if (name === "mktemp") {
    const dir = valuesOf(s, "-p", "--tmpdir")[0];
    const template = s.operands[0];
    if (
      (dir !== undefined && dir !== null && !isScratchPath(`${dir}/x`)) ||
      (template !== undefined && template !== null && template.includes("/") && !isScratchPath(template))
    ) {
      refuse(`\`mktemp\`${where} creates a file outside /tmp`);
    }
    return;
  }
  let targets = spec.skipFirst && !has(s, "--reference") ? s.operands.slice(1) : s.operands;
  const targetDir = valuesOf(s, "-t", "--target-directory");
  if (spec.destOnly) targets = targetDir.length > 0 ? targetDir : targets.slice(-1);
  else targets = [...targets, ...targetDir];
  if (targets.length > 0 && targets.every((t) => isScratchPath(t))) return;
  const list = s.operands.map(shown).join(" ");
  refuse(`\`${name}\`${where} ${spec.what}${list ? ` (${list})` : ""}; a read-only session cannot change files`);
}

function subcommands(name: string, spec: SubcommandSpec, args: Word[], where: string): void {
  const s = scan(args, { ...spec.options, stopAtOperand: true });
  if (s.options.some((o) => spec.allowed.includes(o.name))) return; // e.g. brew --prefix, service --status-all
  const sub = s.rest[0];
  if (sub === undefined) {
    if (spec.bare || s.options.some((o) => /^(--version|-v|-V|--help|-h)$/.test(o.name))) return;
    refuse(
      `\`${name}\`${where} without a subcommand: give one of the read-only subcommands (${listShort(spec.allowed)})`,
    );
  }
  if (sub === null)
    refuse(`\`${name}\`${where}: the subcommand is computed at run time, so the check cannot tell what it does`);
  const sub2 = scan(s.rest.slice(1), { stopAtOperand: true }).rest[0];
  if (spec.allowed.includes(sub) || (typeof sub2 === "string" && spec.allowed.includes(`${sub} ${sub2}`))) return;
  refuse(`\`${name} ${sub}\`${where} ${spec.what}; read-only subcommands: ${listShort(spec.allowed)}`);
}

function listShort(items: string[], max = 12): string {
  return items.length > max ? `${items.slice(0, max).join(", ")}, ...` : items.join(", ");
}

function python(name: string, args: Word[], where: string): void {
  const s = scan(args, { short: "cmWXQ", stopAtOperand: true });
  const mod = valuesOf(s, "-m")[0];
  if (mod === "pip") return subcommands("python -m pip", SUBCOMMANDS.pip, s.rest, where);
  if (mod === "venv" || mod === "ensurepip" || mod === "virtualenv")
    refuse(`\`${name} -m ${mod}\`${where} creates files`);
  if (
    mod === undefined &&
    (s.rest.length === 0 || s.rest[0] === "-") &&
    !has(s, "-c", "-V", "--version", "-h", "--help")
  ) {
    refuse(
      `\`${name}\`${where} without a script reads its program from standard input (a pipe or here-doc), which the check cannot see; pass it with -c instead`,
    );
  }
}

function network(name: string, args: Word[], ctx: CheckContext, where: string): void {
  if (name === "curl") {
    const s = scan(args, {
      short: "dHXuAebcDoTxmwFEKryYzCPQtUh",
      long: [
        "--output",
        "--dump-header",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--libcurl",
        "--upload-file",
        "--stderr",
        "--etag-save",
        "--hsts",
        "--alt-svc",
        "--output-dir",
      ],
    });
    for (const o of s.options) {
      if (
        [
          "-o",
          "--output",
          "-D",
          "--dump-header",
          "-c",
          "--cookie-jar",
          "--trace",
          "--trace-ascii",
          "--libcurl",
          "--stderr",
          "--etag-save",
          "--hsts",
          "--alt-svc",
        ].includes(o.name) &&
        !isScratchPath(o.value ?? null) &&
        o.value !== "-"
      ) {
        refuse(`\`curl ${o.name} ${shown(o.value ?? null)}\`${where} writes a file`);
      }
      if (["-O", "--remote-name", "--remote-name-all", "-J", "--create-dirs", "--output-dir"].includes(o.name))
        refuse(`\`curl ${o.name}\`${where} writes the download into a file`);
      if (["-T", "--upload-file"].includes(o.name))
        refuse(`\`curl ${o.name}\`${where} uploads a file (data leaving the machine)`);
    }
  }
  if (name === "wget") {
    const s = scan(args, {
      short: "oaOPeiBtTwlQUA",
      long: [
        "--output-file",
        "--append-output",
        "--output-document",
        "--directory-prefix",
        "--input-file",
        "--post-file",
        "--body-file",
      ],
    });
    const doc = valuesOf(s, "-O", "--output-document")[0];
    if (
      has(
        s,
        "-o",
        "--output-file",
        "-a",
        "--append-output",
        "-r",
        "--recursive",
        "-m",
        "--mirror",
        "-P",
        "--directory-prefix",
      )
    )
      refuse(`\`wget\`${where} with these options writes files`);
    if (!has(s, "--spider") && doc !== "-" && !isScratchPath(doc ?? null))
      refuse(`\`wget\`${where} saves the download into a file (wget -O - prints it)`);
    if (has(s, "--post-file", "--body-file"))
      refuse(`\`wget --post-file\`${where} uploads a file (data leaving the machine)`);
  }
  if (!ctx.allowNet)
    refuse(
      `\`${name}\`${where} uses the network, which the sandbox does not have (the user can allow it with --allow-net)`,
    );
}

function shell(name: string, args: Word[], ctx: CheckContext, where: string): void {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null) refuse(`\`${name}\`${where} with arguments computed at run time cannot be checked`);
    if (a === "--") {
      if (command) return ctx.checkScript(args[i + 1] ?? "", `${name} -c`);
      if (args[i + 1] === undefined || args[i + 1] === "-") break;
      return; // a script file follows: it runs inside the sandbox
    }
    if (a === "-") break; // the script is standard input
    if (a.startsWith("--")) {
      if (a === "--rcfile" || a === "--init-file") i++;
      continue;
    }
    if (a.startsWith("-") || a.startsWith("+")) {
      if (/^[-+]o$/.test(a) || a === "-O" || a === "+O") i++;
      if (a.startsWith("-") && a.includes("c")) command = true;
      if (a.startsWith("-") && a.includes("s") && !command) {
        refuse(
          `\`${name} -s\`${where} reads commands from standard input (a pipe or here-doc), which the check cannot see; pass them with ${name} -c '...' instead`,
        );
      }
      continue;
    }
    if (command) return ctx.checkScript(a, `${name} -c`);
    return; // `bash script.sh`: runs a file inside the sandbox
  }
  if (command) refuse(`\`${name} -c\`${where} without a command string`);
  refuse(
    `\`${name}\`${where} reads commands from standard input (a pipe or here-doc), which the check cannot see; pass them with ${name} -c '...' instead`,
  );
}

function trap(args: Word[], ctx: CheckContext): void {
  const s = scan(args, {});
  if (has(s, "-l", "-p") || s.operands.length < 2) return;
  ctx.checkScript(s.operands[0], "trap");
}

function envWrapper(args: Word[], ctx: CheckContext): void {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === null) break;
    if (a === "-S" || a.startsWith("--split-string") || /^-[a-zA-Z]*S/.test(a))
      refuse("`env -S` splits a string into a command, which the check cannot follow; write the command directly");
    if (a === "-u" || a === "--unset" || a === "-C" || a === "--chdir") {
      i++;
      continue;
    }
    if (a === "--") {
      i++;
      break;
    }
    if (a.startsWith("-")) continue;
    break;
  }
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === null) break;
    const eq = a.indexOf("=");
    if (eq <= 0) break;
    const name = a.slice(0, eq);
    if (dangerousVariable(name))
      refuse(
        `\`env ${name}=...\` changes which code programs load or run (an environment-variable trick the check does not allow)`,
      );
  }
  ctx.checkArgv(args.slice(i), "env");
}

/** A command that runs another: skip its options and `fixed` operands, check the rest. */
function wrapper(
  name: string,
  args: Word[],
  ctx: CheckContext,
  spec: OptionSpec,
  fixed: number,
  refused: string[] = [],
): void {
  const s = scan(args, { ...spec, stopAtOperand: true });
  for (const o of s.options) {
    if (refused.includes(o.name)) {
      if ((o.name === "-o" || o.name === "--output") && isScratchPath(o.value ?? null)) continue;
      refuse(`\`${name} ${o.name}\` ${o.value !== undefined ? "writes a file" : "acts on other processes"}`);
    }
  }
  ctx.checkArgv(s.rest.slice(fixed), name);
}

function xargs(args: Word[], ctx: CheckContext): void {
  const s = scan(args, {
    short: "adEeIiLlnPs",
    long: [
      "--arg-file",
      "--delimiter",
      "--eof",
      "--replace",
      "--max-lines",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--process-slot-var",
    ],
    stopAtOperand: true,
  });
  // -e, -i and -l take their value only when attached; the scan above is conservative about it.
  ctx.checkArgv(s.rest.length > 0 ? s.rest : ["echo"], "xargs");
}

function watch(args: Word[], ctx: CheckContext): void {
  const s = scan(args, {
    short: "nqd",
    long: ["--interval", "--differences", "--equexit", "--chgexit"],
    stopAtOperand: true,
  });
  if (has(s, "-x", "--exec")) return ctx.checkArgv(s.rest, "watch");
  if (s.rest.some((w) => w === null)) refuse("`watch` runs shell code computed at run time, which cannot be checked");
  ctx.checkScript(s.rest.join(" "), "watch");
}

function find(args: Word[], ctx: CheckContext, where: string): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null) continue;
    if (a === "-delete")
      refuse(
        `\`find -delete\`${where} deletes the files it finds; a read-only session cannot delete files (drop -delete to list them)`,
      );
    if (/^-(fprint|fprint0|fprintf|fls)$/.test(a))
      refuse(`\`find ${a}\`${where} writes its results into a file (use -print, -printf or -ls instead)`);
    // The issue's rule: find never runs commands in a read-only session, whatever the command.
    if (/^-(exec|execdir|ok|okdir)$/.test(a)) {
      refuse(
        `\`find ${a}\`${where} runs a command on every file it finds; the read-only check does not allow it (pipe the names instead: \`find ... -print0 | xargs -0 grep ...\`, or use rt grep)`,
      );
    }
  }
}

/** Scans a sed script for the commands that write files (w, W, s///w) or run commands (e, s///e). */
export function sedScriptProblem(script: string): string | undefined {
  let i = 0;
  const n = script.length;
  const skipSpace = () => {
    while (i < n && /[ \t]/.test(script[i])) i++;
  };
  const readDelimited = (delim: string): boolean => {
    while (i < n) {
      const c = script[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "\n" && delim !== "\n") return false;
      i++;
      if (c === delim) return true;
    }
    return false;
  };
  const readAddress = () => {
    skipSpace();
    if (i < n && /[0-9$]/.test(script[i])) {
      while (i < n && /[0-9$~]/.test(script[i])) i++;
    } else if (script[i] === "/" || script[i] === "\\") {
      const delim = script[i] === "\\" ? script[i + 1] : "/";
      i += script[i] === "\\" ? 2 : 1;
      readDelimited(delim);
      while (i < n && /[IM]/.test(script[i])) i++;
    }
  };
  const toEol = (): string => {
    const start = i;
    while (i < n && script[i] !== "\n") i++;
    return script.slice(start, i).trim();
  };
  while (i < n) {
    while (i < n && /[\s;]/.test(script[i])) i++;
    if (i >= n) break;
    readAddress();
    skipSpace();
    if (script[i] === ",") {
      i++;
      skipSpace();
      if (script[i] === "+" || script[i] === "~") i++;
      readAddress();
    }
    skipSpace();
    while (script[i] === "!") {
      i++;
      skipSpace();
    }
    const cmd = script[i++];
    if (cmd === undefined) break;
    switch (cmd) {
      case "{":
      case "}":
      case "=":
      case "d":
      case "D":
      case "g":
      case "G":
      case "h":
      case "H":
      case "n":
      case "N":
      case "p":
      case "P":
      case "x":
      case "z":
      case "F":
        break;
      case "#":
      case ":":
      case "a":
      case "i":
      case "c":
      case "r":
      case "R":
      case "b":
      case "t":
      case "T":
      case "l":
      case "L":
      case "q":
      case "Q":
        if (cmd === "b" || cmd === "t" || cmd === "T") {
          while (i < n && script[i] !== "\n" && script[i] !== ";" && script[i] !== "}") i++;
        } else if (cmd === "a" || cmd === "i" || cmd === "c") {
          while (i < n && script[i] !== "\n") i += script[i] === "\\" ? 2 : 1;
        } else if (cmd === "l" || cmd === "L" || cmd === "q" || cmd === "Q") {
          while (i < n && /[\s0-9]/.test(script[i]) && script[i] !== "\n") i++;
        } else toEol();
        break;
      case "w":
      case "W": {
        const file = toEol();
        if (!isScratchPath(file)) return `the sed command \`${cmd} ${file}\` writes to a file`;
        break;
      }
      case "e":
        return "the sed command `e` runs a shell command";
      case "s":
      case "y": {
        const delim = script[i++];
        if (delim === undefined || delim === "\n" || delim === "\\") return undefined;
        if (!readDelimited(delim) || !readDelimited(delim)) return undefined;
        if (cmd === "y") break;
        while (i < n && /[gpiImMe0-9]/.test(script[i])) {
          if (script[i] === "e") return "the sed flag `s///e` runs the result as a shell command";
          i++;
        }
        if (script[i] === "w") {
          i++;
          const file = toEol();
          if (!isScratchPath(file)) return `the sed flag \`s///w ${file}\` writes to a file`;
        }
        break;
      }
      default:
        return undefined; // not understood: the sandbox decides
    }
  }
  return undefined;
}

function sed(args: Word[], where: string): void {
  const s = scan(args, { short: "efl", long: ["--expression", "--file", "--line-length"] });
  if (has(s, "-i", "--in-place"))
    refuse(
      `\`sed -i\`${where} edits files in place; a read-only session cannot change files (without -i, sed prints the result)`,
    );
  const scripts = valuesOf(s, "-e", "--expression");
  if (scripts.length === 0 && !has(s, "-f", "--file") && s.operands.length > 0) scripts.push(s.operands[0]);
  for (const script of scripts) {
    if (script === null) continue;
    const problem = sedScriptProblem(script);
    if (problem) refuse(`${problem}${where}; a read-only session cannot write files or run commands through sed`);
  }
}

function inPlaceInterpreter(name: string, args: Word[], where: string): void {
  const s = scan(args, { short: name === "perl" ? "eEMmIxCdD0l" : "eEIrCFKTWx", stopAtOperand: true });
  if (has(s, "-i")) refuse(`\`${name} -i\`${where} edits files in place; a read-only session cannot change files`);
}

/** Scans an awk program for system(), pipes to or from commands, and output redirected into files. */
export function awkProgramProblem(program: string): string | undefined {
  // Blank out string literals, regex literals and comments, keeping their length.
  let code = "";
  for (let i = 0; i < program.length; i++) {
    const c = program[i];
    if (c === '"') {
      let j = i + 1;
      while (j < program.length && program[j] !== '"') j += program[j] === "\\" ? 2 : 1;
      code += `"${" ".repeat(Math.max(0, j - i - 1))}"`;
      i = j;
    } else if (c === "#") {
      while (i < program.length && program[i] !== "\n") {
        code += " ";
        i++;
      }
      code += "\n";
    } else if (c === "/" && /(^|[(,~!{};&|=]|\n|^\s*)\s*$/.test(code.slice(-20))) {
      let j = i + 1;
      while (j < program.length && program[j] !== "/" && program[j] !== "\n") j += program[j] === "\\" ? 2 : 1;
      code += `/${" ".repeat(Math.max(0, j - i - 1))}/`;
      i = j;
    } else code += c;
  }
  if (/\bsystem\s*\(/.test(code)) return "awk's system() runs shell commands";
  if (/\|&/.test(code)) return "awk's |& talks to a coprocess";
  if (/\|\s*getline\b/.test(code)) return 'awk\'s `"cmd" | getline` runs a shell command';
  // print/printf: an unparenthesized > >> or | in the statement redirects its output.
  const re = /\b(print|printf)\b/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) {
    let depth = 0;
    for (let j = m.index + m[0].length; j < code.length; j++) {
      const c = code[j];
      if (c === "(" || c === "[") depth++;
      else if (c === ")" || c === "]") {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && (c === ";" || c === "\n" || c === "}")) break;
      else if (depth === 0 && c === "|") {
        if (code[j + 1] === "|") {
          j++;
          continue;
        }
        return 'awk\'s `print | "cmd"` pipes output into a shell command';
      } else if (depth === 0 && c === ">") {
        const target = program.slice(j).match(/^>>?\s*"([^"]*)"/);
        if (target && isScratchPath(target[1])) continue;
        return "awk's `print > file` writes to a file";
      }
    }
  }
  return undefined;
}

function awk(name: string, args: Word[], where: string): void {
  const s = scan(args, {
    short: "Ffvei",
    long: ["--field-separator", "--file", "--assign", "--source", "--include", "--load", "--exec"],
    stopAtOperand: true,
  });
  for (const o of s.options) {
    if ((o.name === "-i" || o.name === "--include") && o.value !== null && /inplace/.test(o.value ?? ""))
      refuse(`\`${name} -i inplace\`${where} edits files in place`);
    if (/^(-d|--dump-variables|-p|--profile|-o|--pretty-print)/.test(o.name))
      refuse(`\`${name} ${o.name}\`${where} writes a file`);
    if (o.name === "-l" || o.name === "--load") refuse(`\`${name} ${o.name}\`${where} loads a shared library`);
  }
  const programs = valuesOf(s, "-e", "--source");
  if (!has(s, "-f", "--file") && programs.length === 0 && s.rest.length > 0) programs.push(s.rest[0]);
  for (const p of programs) {
    if (p === null) continue;
    const problem = awkProgramProblem(p);
    if (problem) refuse(`${problem}${where}; a read-only session cannot write files or run commands through awk`);
  }
}

function compressor(name: string, args: Word[], where: string): void {
  const s = scan(args, { short: "bSTLDo", long: ["--suffix", "--output", "--memlimit", "--threads", "--format"] });
  if (has(s, "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test")) return;
  const out = valuesOf(s, "-o", "--output");
  if (out.length > 0 && out.every((o) => isScratchPath(o))) return;
  if (s.operands.length === 0) return; // a filter from standard input to standard output
  refuse(
    `\`${name}\`${where} replaces the file with its (de)compressed version (${name} -c writes to standard output instead)`,
  );
}

function tar(args: Word[], where: string): void {
  // Old style (`tar tzf a.tar`): the first word is a cluster of letters without a dash.
  const norm = args.slice();
  if (typeof norm[0] === "string" && !norm[0].startsWith("-") && /^[A-Za-z]+$/.test(norm[0])) norm[0] = `-${norm[0]}`;
  const s = scan(norm, {
    short: "fCbHKLMNTVXg",
    long: [
      "--file",
      "--directory",
      "--exclude",
      "--files-from",
      "--exclude-from",
      "--transform",
      "--use-compress-program",
      "--owner",
      "--group",
      "--mode",
      "--mtime",
      "--format",
      "--label",
      "--newer",
      "--after-date",
    ],
  });
  const listing = has(s, "-t", "--list", "-d", "--diff", "--compare");
  const extracting = has(s, "-x", "--extract", "--get");
  const creating = has(
    s,
    "-c",
    "--create",
    "-r",
    "--append",
    "-u",
    "--update",
    "-A",
    "--catenate",
    "--concatenate",
    "--delete",
  );
  if (listing && !extracting && !creating) return;
  if (extracting) {
    if (has(s, "-O", "--to-stdout")) return;
    refuse(`\`tar -x\`${where} extracts files (tar -t lists, tar -xO prints to standard output)`);
  }
  if (creating) {
    const file = valuesOf(s, "-f", "--file")[0];
    if (file === undefined || file === "-" || isScratchPath(file)) return;
    refuse(`\`tar -c\`${where} writes the archive ${shown(file)} (tar -cf - writes it to standard output)`);
  }
}

function unzip(args: Word[], where: string): void {
  const s = scan(args, { short: "dxP", long: [] });
  if (has(s, "-l", "-v", "-t", "-p", "-Z", "-z")) return;
  refuse(`\`unzip\`${where} extracts files (unzip -l lists, unzip -p prints to standard output)`);
}

function outputOption(name: string, args: Word[], spec: OptionSpec, outputs: string[], where: string): void {
  const s = scan(args, spec);
  for (const o of valuesOf(s, ...outputs)) {
    if (!isScratchPath(o))
      refuse(`\`${name} -o ${shown(o)}\`${where} writes its output into a file (without -o it prints it)`);
  }
}

// ---------------------------------------------------------------------------
// git: the read-only subcommands only, and never `git -c`.

const GIT_READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "grep",
  "blame",
  "annotate",
  "shortlog",
  "describe",
  "rev-parse",
  "rev-list",
  "ls-files",
  "ls-tree",
  "cat-file",
  "show-ref",
  "for-each-ref",
  "merge-base",
  "name-rev",
  "count-objects",
  "diff-tree",
  "diff-files",
  "diff-index",
  "whatchanged",
  "cherry",
  "show-branch",
  "range-diff",
  "version",
  "help",
  "var",
  "check-ignore",
  "check-attr",
  "check-ref-format",
  "verify-commit",
  "verify-tag",
  "branch",
  "tag",
  "remote",
  "config",
  "stash",
  "worktree",
  "notes",
  "reflog",
  "archive",
  "format-patch",
  "bisect",
  "ls-remote",
  "submodule",
]);
const GIT_SHOWN =
  "status, log, diff, show, grep, blame, shortlog, describe, rev-parse, ls-files, ls-tree, cat-file, branch (listing), tag (listing), remote -v, config --get/--list, stash list/show, reflog";

function git(args: Word[], ctx: CheckContext, where: string): void {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === null) refuse(`\`git\`${where} with an option computed at run time cannot be checked`);
    if (a === "-c" || (a.startsWith("-c") && a.length > 2) || a === "--config-env" || a.startsWith("--config-env=")) {
      refuse(
        `\`git -c\`${where} sets configuration for one command (core.pager, core.fsmonitor, diff.external... run arbitrary commands); drop it`,
      );
    }
    if (a.startsWith("--exec-path=") || a === "--upload-pack" || a.startsWith("--upload-pack="))
      refuse(`\`git ${a}\`${where} changes which programs git runs`);
    if (a === "-C" || a === "--git-dir" || a === "--work-tree" || a === "--namespace" || a === "--super-prefix") {
      i++;
      continue;
    }
    if (!a.startsWith("-")) break;
  }
  const sub = args[i];
  if (sub === undefined) return; // git --version, git --help, bare git
  if (sub === null)
    refuse(`\`git\`${where}: the subcommand is computed at run time, so the check cannot tell what it does`);
  const rest = args.slice(i + 1);
  const refuseSub = (shownArgs = "", hint = ""): never =>
    refuse(
      `\`git ${sub}${shownArgs ? ` ${shownArgs}` : ""}\`${where} changes the repository, its configuration or the work tree${hint ? ` (${hint})` : ""}; read-only git subcommands: ${GIT_SHOWN}`,
    );
  if (!GIT_READ_ONLY.has(sub)) {
    if (/^(fetch|pull|push|clone)$/.test(sub))
      refuse(
        `\`git ${sub}\`${where} talks to another repository over the network and changes this one; read-only git subcommands: ${GIT_SHOWN}`,
      );
    refuseSub();
  }
  for (const a of rest) {
    if (a === null) continue;
    if (a === "--output" || a.startsWith("--output="))
      refuse(`\`git ${sub} --output\`${where} writes into a file (without it git prints)`);
    if (sub === "grep" && (a === "-O" || a.startsWith("--open-files-in-pager") || /^-O./.test(a)))
      refuse(`\`git grep -O\`${where} opens the files in a pager program`);
  }
  const operands = rest.filter((a) => a !== null && !a.startsWith("-"));
  const flags = rest.filter((a): a is string => a !== null && a.startsWith("-"));
  const hasFlag = (...names: string[]) => flags.some((f) => names.some((n) => f === n || f.startsWith(`${n}=`)));
  switch (sub) {
    case "branch": {
      if (
        flags.some((f) =>
          /^(-[dDmMcCfu]|--delete|--move|--copy|--force|--set-upstream-to|--set-upstream|--unset-upstream|--edit-description|--track|--no-track|-t|--create-reflog|--recurse-submodules)(=|$)/.test(
            f,
          ),
        )
      )
        refuseSub(flags.join(" "));
      if (
        operands.length > 0 &&
        !hasFlag(
          "-l",
          "--list",
          "--contains",
          "--no-contains",
          "--merged",
          "--no-merged",
          "--points-at",
          "--sort",
          "--format",
        )
      )
        refuseSub(operands.join(" "), "it creates a branch; git branch without arguments lists them");
      return;
    }
    case "tag": {
      if (
        flags.some((f) =>
          /^(-[dasfmFue]|--delete|--annotate|--sign|--force|--message|--file|--local-user|--edit|--cleanup|--create-reflog)(=|$)/.test(
            f,
          ),
        )
      )
        refuseSub(flags.join(" "));
      if (
        operands.length > 0 &&
        !hasFlag(
          "-l",
          "--list",
          "--contains",
          "--no-contains",
          "--merged",
          "--no-merged",
          "--points-at",
          "-v",
          "--verify",
        )
      )
        refuseSub(operands.join(" "), "it creates a tag; git tag without arguments lists them");
      return;
    }
    case "remote":
      if (operands.length === 0 || operands[0] === "get-url" || (operands[0] === "show" && hasFlag("-n"))) return;
      return refuseSub(operands[0] ?? "");
    case "config": {
      const reading =
        hasFlag(
          "--get",
          "--get-all",
          "--get-regexp",
          "--get-urlmatch",
          "--get-color",
          "--get-colorbool",
          "--list",
          "-l",
        ) ||
        operands[0] === "get" ||
        operands[0] === "list";
      const writing =
        hasFlag(
          "--add",
          "--unset",
          "--unset-all",
          "--replace-all",
          "--rename-section",
          "--remove-section",
          "--edit",
          "-e",
        ) || /^(set|unset|rename-section|remove-section|edit)$/.test(operands[0] ?? "");
      if (writing || (!reading && operands.length > 1)) refuseSub(rest.map(shown).join(" "));
      return;
    }
    case "stash":
      if (operands[0] === "list" || operands[0] === "show") return;
      return refuseSub(operands[0] ?? "", "it saves and resets the work tree; git stash list and git stash show read");
    case "worktree":
    case "notes":
      if (operands[0] === "list" || (sub === "notes" && operands[0] === "show")) return;
      return refuseSub(operands[0] ?? "");
    case "reflog":
      if (operands.length === 0 || /^(show|list|exists)$/.test(operands[0] ?? "")) return;
      return refuseSub(operands[0] ?? "");
    case "submodule":
      if (operands[0] === "status" || operands[0] === "summary" || operands.length === 0) return;
      return refuseSub(operands[0] ?? "");
    case "bisect":
      if (/^(log|view|visualize|terms)$/.test(operands[0] ?? "")) return;
      return refuseSub(operands[0] ?? "");
    case "archive":
      if (hasFlag("-o", "--output") || flags.some((f) => /^-o./.test(f)) || hasFlag("--remote"))
        refuseSub("--output", "git archive without -o writes to standard output");
      return;
    case "format-patch":
      if (!hasFlag("--stdout")) refuseSub("", "it writes patch files; add --stdout to print them");
      return;
    case "ls-remote":
      if (!ctx.allowNet)
        refuse(
          `\`git ls-remote\`${where} uses the network, which the sandbox does not have (the user can allow it with --allow-net)`,
        );
      return;
  }
}
