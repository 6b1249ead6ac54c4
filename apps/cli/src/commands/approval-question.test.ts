import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createOutput } from '../output.ts';
import { approvalQuestion } from './chat.ts';

const output = createOutput({ out: new PassThrough(), err: new PassThrough(), env: { NO_COLOR: '1' } });

describe('approvalQuestion', () => {
  it('asks on one line for a short command', () => {
    expect(approvalQuestion(output, ['ls', '-la', 'my file'])).toBe('run ls -la "my file" [y/N] ');
  });

  it('says how long a long command is next to the answer, so padding cannot hide its start', () => {
    const argv = ['sh', '-c', `rm -rf ~ #${' '.repeat(5_000)}ls`];
    const question = approvalQuestion(output, argv);
    expect(question.startsWith(`run sh -c "rm -rf ~ #${' '.repeat(5_000)}ls"\n`)).toBe(true);
    expect(question.endsWith('↑ a long command (5020 characters in 3 arguments): scroll up and read all of it before you answer [y/N] ')).toBe(true);
  });
});
