/** One problem found in a tool's arguments: where (`items[0].name`) and what, written for the model. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Joins issues into one line: `limit: must be <= 100, got 500; q: is required`. */
export function joinIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}
