// What a tag filter may say: a tag name and a value pattern (`*` wildcards, a leading `!`
// to negate). One definition for the query parameters and for stored alert conditions,
// so a condition accepted at creation is one the engine can compile on every round.
import { MAX_PATTERN_LENGTH } from './glob.js';

const NAME = /^[-.:_A-Za-z0-9]{1,64}$/;
const PATTERN = /^!?[-.:_?\\/A-Za-z0-9 *]{1,255}$/;

/** Why a tag name cannot be filtered on, or null. */
export function tagNameProblem(name: string): string | null {
  return NAME.test(name) ? null : `tag name ${JSON.stringify(name.slice(0, 70))} is invalid`;
}

/** Why a value pattern for this tag cannot be compiled, or null. */
export function tagPatternProblem(name: string, pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH + 1 || !PATTERN.test(pattern)) return `pattern ${JSON.stringify(pattern.slice(0, 70))} for tag ${name} is invalid`;
  return null;
}
