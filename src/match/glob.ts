// Simple `*` wildcards in linear time, never a RegExp built from user input
// (a pattern like a*a*a*a*b must not backtrack). Matching is case-insensitive because
// names and tag values are stored lower-cased.

export const MAX_PATTERN_LENGTH = 255;

export interface Glob {
  /** the pattern as given, lower-cased, runs of `*` collapsed */
  readonly source: string;
  readonly hasWildcard: boolean;
  test(value: string): boolean;
}

export function compileGlob(pattern: string): Glob {
  const source = pattern.toLowerCase().replace(/\*+/g, '*');
  const parts = source.split('*');
  const hasWildcard = parts.length > 1;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1).filter((p) => p !== '');
  return {
    source,
    hasWildcard,
    test(raw: string): boolean {
      const value = raw.toLowerCase();
      if (!hasWildcard) return value === source;
      if (value.length < first.length + last.length) return false;
      if (!value.startsWith(first) || !value.endsWith(last)) return false;
      // Greedy leftmost placement of each middle part is optimal for `*` globs.
      let at = first.length;
      const end = value.length - last.length;
      for (const part of middle) {
        const found = value.indexOf(part, at);
        if (found < 0 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    },
  };
}
