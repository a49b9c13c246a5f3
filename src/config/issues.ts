import type { z } from 'zod';

/** `code_execution.timeout` from a zod path. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function describeInput(input: unknown): string {
  if (input === undefined) return 'nothing';
  const json = JSON.stringify(input);
  if (json === undefined) return String(input);
  return json.length > 60 ? json.slice(0, 57) + '...' : json;
}

/** One line per problem: `code_execution.timeout: expected a positive number, got "abc"`. */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const where = keyPath(issue.path);
  const got = 'input' in issue && issue.code !== 'unrecognized_keys' ? `, got ${describeInput(issue.input)}` : '';
  return `${where || '(top level)'}: ${issue.message}${got}`;
}

/** The dotted names of keys the schema does not know, from `unrecognized_keys` issues. */
export function unknownKeys(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => keyPath([...issue.path, key])) : [],
  );
}
