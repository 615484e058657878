// Names and titles people read: any text, but not blank and without control characters
// (they would break logs and displays). Checked here rather than with a schema pattern,
// so that the message says what is wrong instead of quoting a regular expression.

export function displayTextProblem(text: string): string | null {
  if (!/\S/.test(text)) return 'must not be blank';
  return controlCharacterProblem(text);
}

/** For optional text that may be empty or blank (a chart's axis label, a stream's units). */
export function controlCharacterProblem(text: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'must not contain control characters';
  return null;
}
