import { describe, expect, it } from 'vitest';
import { deniedSyscalls, seccompProgram } from './seccomp-filter.ts';

function decode(program: Buffer): { code: number; jt: number; jf: number; k: number }[] {
  const out = [];
  for (let i = 0; i < program.length; i += 8) {
    out.push({ code: program.readUInt16LE(i), jt: program.readUInt8(i + 2), jf: program.readUInt8(i + 3), k: program.readUInt32LE(i + 4) });
  }
  return out;
}

/** Runs the program the way the kernel would, for one (arch, nr, second argument). */
function verdict(program: Buffer, arch: number, nr: number, arg1 = 0): number {
  const insns = decode(program);
  let acc = 0;
  for (let pc = 0; pc < insns.length; pc++) {
    const { code, jt, jf, k } = insns[pc]!;
    if (code === 0x20) acc = k === 4 ? arch : k === 0 ? nr : k === 24 ? arg1 : Number.NaN;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('fell off the end');
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const EOPNOTSUPP = 0x0005005f;

describe('seccompProgram', () => {
  it('refuses SysV shared memory, message queues and memfd on x86_64, and nothing else', () => {
    const program = seccompProgram('x64')!;
    const x64 = 0xc000003e;
    for (const nr of [29, 68, 319, 447]) expect(verdict(program, x64, nr)).toBe(EPERM);
    for (const nr of [0, 1, 2, 57, 59, 9, 30, 31, 67, 69, 318, 320]) expect(verdict(program, x64, nr)).toBe(ALLOW);
    // x32 syscalls and other architectures (i386 binaries) are refused outright.
    expect(verdict(program, x64, 0x40000000 + 1)).toBe(EPERM);
    expect(verdict(program, 0x40000003, 1)).toBe(EPERM);
  });

  it('does the same with arm64 numbers', () => {
    const program = seccompProgram('arm64')!;
    const arm64 = 0xc00000b7;
    for (const nr of [194, 186, 279, 447]) expect(verdict(program, arm64, nr)).toBe(EPERM);
    for (const nr of [63, 64, 221, 222, 196, 195]) expect(verdict(program, arm64, nr)).toBe(ALLOW);
  });

  it('allows fallocate in mode 0 only (KEEP_SIZE allocates past RLIMIT_FSIZE): other modes get EOPNOTSUPP', () => {
    for (const [arch, auditArch, nr] of [['x64', 0xc000003e, 285], ['arm64', 0xc00000b7, 47]] as const) {
      const program = seccompProgram(arch)!;
      expect(verdict(program, auditArch, nr, 0)).toBe(ALLOW);
      for (const mode of [1, 3, 0x10, 0x11, 0x20]) expect(verdict(program, auditArch, nr, mode)).toBe(EOPNOTSUPP);
      // Other syscalls are not judged by their second argument.
      expect(verdict(program, auditArch, 1, 1)).toBe(ALLOW);
    }
  });

  it('names what it refuses, and has no program for an unknown architecture', () => {
    expect(deniedSyscalls('x64')).toEqual(['shmget', 'msgget', 'memfd_create', 'memfd_secret']);
    expect(seccompProgram('riscv64')).toBeUndefined();
    expect(deniedSyscalls('riscv64')).toBeUndefined();
  });
});
