// Names and titles people read: any text, but not blank and without control characters
// (they would break logs and displays). Checked here rather than with a schema pattern,
// so that the message says what is wrong instead of quoting a regular expression.

/**
 * Characters that are not text to read: C0 and C1 controls, the line and paragraph
 * separators (a line break to a log or a script as \n is), and the bidirectional
 * embeddings, overrides and isolates, which make a name display as other text than it is
 * (a space named with U+202E reads backwards after it).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Half of a surrogate pair without its other half (code units: no `u` flag). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Something that shows: not only spaces and invisible format characters (U+200B and the like). */
const VISIBLE = /[^\s\p{Cf}]/u;

export function displayTextProblem(text: string): string | null {
  if (!VISIBLE.test(text)) return 'must not be blank';
  return controlCharacterProblem(text);
}

/** For optional text that may be empty or blank (a chart's axis label, a stream's units). */
export function controlCharacterProblem(text: string): string | null {
  if (CONTROL.test(text)) return 'must not contain control characters';
  // a lone half of a surrogate pair is no character at all: what a client shows for it varies
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it holds half of a surrogate pair)';
  return null;
}
