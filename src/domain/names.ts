// Name rules shared by every resource that stores metric names.
import { displayTextProblem } from './text.js';

export const METRIC_NAME = /^[A-Za-z0-9.:_-]{1,255}$/;
/** A `*` pattern over metric names (batch updates and deletes). */
export const METRIC_PATTERN = /^[A-Za-z0-9.:_*-]{1,255}$/;

/** Sources (the legacy API's, stored as the `source` tag, lower-cased). */
export const SOURCE = /^[A-Za-z0-9.:_-]{1,255}$/;
export const SOURCE_MESSAGE = 'must be 1-255 characters of letters, digits, . : - _';
export const METRIC_NAME_MESSAGE = 'must be 1-255 characters of letters, digits, . : - _';

/** The metric namespace is case-insensitive: this is the stored, canonical form. */
export function canonicalMetricName(name: string): string {
  return name.toLowerCase();
}

/**
 * The display name of a metric or a source: null or '' (none), or text people read,
 * without control characters (text.ts says why).
 */
export function displayNameProblem(name: string | null | undefined): string | null {
  return name ? displayTextProblem(name) : null;
}
