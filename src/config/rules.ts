// Rules between keys, which the schema cannot say (defaults are null or independent).
// They run after schema validation, on a config that has every key.
import type { LineCounter } from 'yaml';
import cron from 'node-cron';
import { outboundEntryProblem, proxyEntryProblem } from '../match/address.js';
import { lineOf, type ConfigProblem, type ValueOrigin } from './describe.js';

/** The keys these rules read, in a config the schema has admitted. */
interface Checked {
  http: { headers_timeout_ms: number; request_timeout_ms: number; trust_proxy: boolean | string[] };
  tls: { cert_file: string | null; key_file: string | null };
  storage: { retention_schedule: string };
  alerts: { check_schedule: string };
  notifications: { outbound: { allow: string[]; deny: string[] } };
}

export function crossKeyProblems(c: Checked, root: unknown, lc: LineCounter, file: string, origins: ValueOrigin[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  /** blames the key that was set (in the file, the environment or a flag) for a rule about `path` */
  const at = (blamed: string[], path: string, message: string) => {
    const origin = origins.find((o) => o.path.join('.') === blamed.join('.'));
    problems.push(origin
      ? { file: origin.label, line: 0, path, message }
      : { file, line: lineOf(root, blamed, lc), path, message });
  };
  if ((c.tls.cert_file === null) !== (c.tls.key_file === null)) {
    const set = c.tls.cert_file === null ? 'key_file' : 'cert_file';
    const unset = set === 'cert_file' ? 'key_file' : 'cert_file';
    at(['tls', set], `tls.${unset}`, `must be set together with tls.${set}`);
  }
  // Node refuses to create a server whose header deadline is later than the request's.
  if (c.http.headers_timeout_ms > c.http.request_timeout_ms) {
    at(['http', 'request_timeout_ms'], 'http.request_timeout_ms', `must be at least http.headers_timeout_ms (${c.http.headers_timeout_ms})`);
  }
  if (Array.isArray(c.http.trust_proxy)) {
    c.http.trust_proxy.forEach((entry, i) => {
      const problem = proxyEntryProblem(entry);
      if (problem) at(['http', 'trust_proxy', String(i)], `http.trust_proxy[${i}]`, problem);
    });
  }
  // checked here so a bad expression is refused by check-config and by a reload, not thrown at scheduling
  if (!cron.validate(c.storage.retention_schedule)) {
    at(['storage', 'retention_schedule'], 'storage.retention_schedule', `"${c.storage.retention_schedule}" is not a cron expression (minute hour day-of-month month day-of-week)`);
  }
  for (const list of ['allow', 'deny'] as const) {
    c.notifications.outbound[list].forEach((entry, i) => {
      const problem = outboundEntryProblem(entry);
      if (problem) at(['notifications', 'outbound', list, String(i)], `notifications.outbound.${list}[${i}]`, problem);
    });
  }
  if (!cron.validate(c.alerts.check_schedule)) {
    at(['alerts', 'check_schedule'], 'alerts.check_schedule', `"${c.alerts.check_schedule}" is not a cron expression ([second] minute hour day-of-month month day-of-week)`);
  }
  return problems;
}
