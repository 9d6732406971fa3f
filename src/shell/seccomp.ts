// A small seccomp-BPF program handed to bubblewrap (`--seccomp FD`). The
// read-only mounts and namespaces stop writes to files; this closes what they
// leave open to a process that is still uid 0 on the host (rt often runs as
// root in containers):
//   - socket(AF_UNIX, ...): a Unix socket on a read-only filesystem can still be
//     connected to, and the daemon behind it (a database, Docker, D-Bus, syslog)
//     would change things on the command's behalf. socketpair() stays allowed.
//   - socket(AF_VSOCK, ...): virtual sockets (virtio-vsock under KVM and
//     Firecracker, Hyper-V sockets under WSL2, VMware's VMCI) belong to no
//     network namespace, so `--unshare-net` does not stop them: a command
//     could reach the hypervisor host (CID 2) and its services without
//     --allow-net. Refused whether or not the network is allowed (nothing a
//     research command needs goes through them).
//   - add_key, request_key, keyctl: kernel keyrings are per user, not per
//     namespace, so root's keyring is shared with the host.
//   - io_uring_setup, io_uring_enter, io_uring_register: io_uring performs
//     operations inside the kernel on the program's behalf (IORING_OP_SOCKET
//     creates an AF_UNIX socket without a socket() call, IORING_OP_OPENAT and
//     IORING_OP_WRITE open and write files), none of which this filter would
//     see; refusing io_uring_setup alone would do, the other two are refused
//     in case a ring is ever inherited. Programs fall back to ordinary system
//     calls when io_uring_setup fails.
//   - the x32 ABI and foreign architectures (32-bit binaries): their system
//     call numbers differ, so the filter could not vouch for them.
// Every refusal is EPERM ("Operation not permitted"). Built by hand (it is
// 18 instructions on x86-64) so that no native module is needed.

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;
const AF_VSOCK = 40;

/** Offsets in struct seccomp_data. */
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16; // low 32 bits on little-endian machines

interface ArchInfo {
  audit: number;
  socket: number;
  keyCalls: number[];
  /** io_uring_setup, io_uring_enter, io_uring_register. */
  ioUringCalls: number[];
  /** Syscall numbers at or above this are refused (x32 on x86-64). */
  refuseFrom?: number;
}

const ARCHES: Partial<Record<NodeJS.Architecture, ArchInfo>> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    keyCalls: [248, 249, 250],
    ioUringCalls: [425, 426, 427],
    refuseFrom: 0x40000000,
  },
  arm64: { audit: 0xc00000b7, socket: 198, keyCalls: [217, 218, 219], ioUringCalls: [425, 426, 427] },
};

interface Insn {
  code: number;
  k: number;
  jt?: number | string;
  jf?: number | string;
}

/** The filter for `arch` as raw `struct sock_filter` bytes, or undefined on an architecture it does not know. */
export function seccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const a = ARCHES[arch];
  if (!a) return undefined;
  const prog: Insn[] = [];
  const labels: Record<string, number> = {};
  prog.push({ code: BPF_LD_W_ABS, k: OFF_ARCH });
  prog.push({ code: BPF_JEQ_K, k: a.audit, jt: 0, jf: "kill" });
  prog.push({ code: BPF_LD_W_ABS, k: OFF_NR });
  if (a.refuseFrom !== undefined) prog.push({ code: BPF_JGE_K, k: a.refuseFrom, jt: "eperm", jf: 0 });
  prog.push({ code: BPF_JEQ_K, k: a.socket, jt: "socket", jf: 0 });
  for (const nr of [...a.keyCalls, ...a.ioUringCalls]) prog.push({ code: BPF_JEQ_K, k: nr, jt: "eperm", jf: 0 });
  prog.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW });
  labels.socket = prog.length;
  prog.push({ code: BPF_LD_W_ABS, k: OFF_ARG0 });
  prog.push({ code: BPF_JEQ_K, k: AF_UNIX, jt: "eperm", jf: 0 });
  prog.push({ code: BPF_JEQ_K, k: AF_VSOCK, jt: "eperm", jf: 0 });
  prog.push({ code: BPF_RET_K, k: SECCOMP_RET_ALLOW });
  labels.eperm = prog.length;
  prog.push({ code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM });
  labels.kill = prog.length;
  prog.push({ code: BPF_RET_K, k: SECCOMP_RET_KILL_PROCESS });

  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    const jump = (j: number | string | undefined): number => {
      if (j === undefined) return 0;
      if (typeof j === "number") return j;
      const off = labels[j] - i - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${j} out of range`);
      return off;
    };
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(jump(insn.jt), i * 8 + 2);
    buf.writeUInt8(jump(insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}
