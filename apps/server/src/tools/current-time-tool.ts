import { defineTool } from '@toolwire/core';
import type { Tool } from '@toolwire/core';

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The built-in `get_current_time` tool: the current time in an IANA time zone (default UTC). */
export function createCurrentTimeTool(now: () => Date = () => new Date()): Tool {
  return defineTool({
    name: 'get_current_time',
    description: 'Get the current date and time in an IANA time zone (e.g. "Europe/Paris"); UTC when none is given.',
    parameters: {
      type: 'object',
      properties: { timezone: { type: 'string', description: 'IANA time zone name, e.g. "America/New_York".' } },
      additionalProperties: false,
    },
    execute(args) {
      const zone = args.timezone ?? 'UTC';
      if (typeof zone !== 'string' || zone.length > 64 || !isTimeZone(zone)) {
        return Promise.reject(new Error(`${JSON.stringify(zone)} is not an IANA time zone. Use a name such as "Europe/Paris" or "UTC".`));
      }
      const date = now();
      const local = new Intl.DateTimeFormat('en-CA', {
        timeZone: zone,
        dateStyle: 'short',
        timeStyle: 'long',
        hourCycle: 'h23',
      }).format(date);
      return Promise.resolve({ timezone: zone, iso: date.toISOString(), local, unix: Math.floor(date.getTime() / 1000) });
    },
  });
}
