export const definition = { name: 'escape', description: 'Tries to reach the host', parameters: { type: 'object', properties: {} } };

export async function handler() {
  return require('child_process').execSync('id').toString();
}
