import { describe, expect, it } from 'vitest';
import { createCurrentTimeTool } from './current-time-tool.ts';

const context = { toolCallId: 'call_1', signal: new AbortController().signal };
const tool = createCurrentTimeTool(() => new Date('2026-01-15T12:30:00Z'));

describe('get_current_time', () => {
  it('answers in UTC by default', async () => {
    await expect(tool.execute?.({}, context)).resolves.toMatchObject({ timezone: 'UTC', iso: '2026-01-15T12:30:00.000Z', unix: 1_768_480_200 });
  });

  it('answers in an IANA time zone', async () => {
    const result = (await tool.execute?.({ timezone: 'Asia/Tokyo' }, context)) as { local: string };
    expect(result.local).toContain('21:30:00');
  });

  it('refuses a name that is not an IANA time zone, saying what to send', async () => {
    await expect(tool.execute?.({ timezone: 'Mars/Olympus' }, context)).rejects.toThrow(/not an IANA time zone/);
    await expect(tool.execute?.({ timezone: 42 }, context)).rejects.toThrow(/not an IANA time zone/);
  });
});
