/** The function tool the provider tests offer, as core spells it. */
export const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] },
};
