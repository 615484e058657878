// Name rules shared by every resource that stores metric names.

export const METRIC_NAME = /^[A-Za-z0-9.:_-]{1,255}$/;
export const METRIC_NAME_MESSAGE = 'must be 1-255 characters of letters, digits, . : - _';

/** The metric namespace is case-insensitive: this is the stored, canonical form. */
export function canonicalMetricName(name: string): string {
  return name.toLowerCase();
}
