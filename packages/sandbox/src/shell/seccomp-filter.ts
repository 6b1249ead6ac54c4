/**
 * Syscalls refused inside the shell jail, by CPU architecture. Each makes RAM-backed memory
 * that no limit of ours counts: System V shared memory and message queues (the jail's own
 * IPC namespace has no size limits) and memfd files (many of them, each up to
 * RLIMIT_FSIZE). Numbers from the kernel's syscall tables. `fallocate` is allowed in its
 * plain mode only (see `seccompProgram`).
 */
const DENIED: Record<string, { auditArch: number; syscalls: Record<string, number>; fallocate: number; x32: boolean }> = {
  x64: { auditArch: 0xc000003e, syscalls: { shmget: 29, msgget: 68, memfd_create: 319, memfd_secret: 447 }, fallocate: 285, x32: true },
  arm64: { auditArch: 0xc00000b7, syscalls: { shmget: 194, msgget: 186, memfd_create: 279, memfd_secret: 447 }, fallocate: 47, x32: false },
};

// Classic BPF, as seccomp takes it (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const EOPNOTSUPP = 95;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
// seccomp_data.args[1], its low 32 bits (little-endian): fallocate's `int mode`.
const OFFSET_ARG1_LOW = 24;
// x86_64's x32 ABI numbers its syscalls from here; refused as a whole.
const X32_SYSCALL_BIT = 0x40000000;

/** The syscall names refused on `arch` (Node's `process.arch`), or undefined where we have no table. */
export function deniedSyscalls(arch: string): string[] | undefined {
  const table = DENIED[arch];
  return table === undefined ? undefined : Object.keys(table.syscalls);
}

/**
 * The seccomp program (for bubblewrap's `--seccomp FD`) that makes the denied syscalls fail
 * with EPERM and allows the rest; any other architecture (a 32-bit binary) gets EPERM for
 * everything. `fallocate` with a mode other than 0 fails with EOPNOTSUPP, as on a filesystem
 * without it: `FALLOC_FL_KEEP_SIZE` allocates blocks past the end of a file, which RLIMIT_FSIZE
 * does not bound (one call took 4 GB of disk in milliseconds, the host's free space in a few).
 * Mode 0 (`posix_fallocate`) grows the file and stays under RLIMIT_FSIZE; glibc falls back to
 * writing on EOPNOTSUPP. Undefined on architectures without a table: then no filter is installed.
 */
export function seccompProgram(arch: string): Buffer | undefined {
  const table = DENIED[arch];
  if (table === undefined) return undefined;
  const numbers = Object.values(table.syscalls);
  // Layout: load arch, check it, load nr, [x32 check], one JEQ per syscall, fallocate's JEQ,
  // load its mode, check it, ALLOW, DENY, UNSUPPORTED.
  const checks = (table.x32 ? 1 : 0) + numbers.length;
  const allowAt = 3 + checks + 3;
  const denyAt = allowAt + 1;
  const unsupportedAt = denyAt + 1;
  const program: [code: number, jt: number, jf: number, k: number][] = [];
  const jumpTo = (target: number) => target - (program.length + 1);
  program.push([LD_W_ABS, 0, 0, OFFSET_ARCH]);
  program.push([JEQ_K, 0, jumpTo(denyAt), table.auditArch]);
  program.push([LD_W_ABS, 0, 0, OFFSET_NR]);
  if (table.x32) program.push([JGE_K, jumpTo(denyAt), 0, X32_SYSCALL_BIT]);
  for (const nr of numbers) program.push([JEQ_K, jumpTo(denyAt), 0, nr]);
  program.push([JEQ_K, 0, jumpTo(allowAt), table.fallocate]);
  program.push([LD_W_ABS, 0, 0, OFFSET_ARG1_LOW]);
  program.push([JEQ_K, jumpTo(allowAt), jumpTo(unsupportedAt), 0]);
  program.push([RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  program.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  program.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | EOPNOTSUPP]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
