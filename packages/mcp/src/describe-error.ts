/**
 * An error's message for a user or a model. The SDK's schema errors (a zod error, whose
 * message is a JSON dump of every issue, nested for unions) become one line naming the first
 * issue: the dump of a server's malformed answer read as two thousand characters of brackets.
 */
export function describeError(error: unknown): string {
  // JSON.parse of a body the server sent (the SDK parses JSON answers itself).
  if (error instanceof SyntaxError) return `the server sent text that is not JSON (${error.message.slice(0, 200)})`;
  if (!isSchemaError(error)) return error instanceof Error ? error.message : String(error);
  let issue: SchemaIssue | undefined = error.issues[0];
  // A union's issue holds the issues of each branch: the first branch's says more than "Invalid input".
  for (let depth = 0; depth < 5 && issue?.errors?.[0]?.[0] !== undefined; depth++) issue = issue.errors[0][0];
  const path = issue?.path === undefined || issue.path.length === 0 ? '' : `at ${issue.path.slice(0, 6).map(String).join('.')}: `;
  const text = typeof issue?.message === 'string' ? issue.message : 'invalid';
  return `the server sent a message MCP does not allow (${path}${text.slice(0, 200)})`;
}

interface SchemaIssue {
  path?: readonly unknown[];
  message?: unknown;
  errors?: readonly (readonly SchemaIssue[])[];
}

function isSchemaError(error: unknown): error is Error & { issues: readonly SchemaIssue[] } {
  return error instanceof Error && error.name.endsWith('ZodError') && Array.isArray((error as { issues?: unknown }).issues);
}
