export const definition = {
  name: 'greet',
  description: 'Greets someone by name',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
};

export function handler({ name }) {
  return { greeting: `Hello, ${name}!`, hasRequire: typeof require !== 'undefined', hasProcess: typeof process !== 'undefined' };
}
