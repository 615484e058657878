// One pino root logger; components take child loggers. Secrets never reach the log.
// Lines are JSON with level names and ISO times, readable without a pino pretty-printer.
// Under systemd (stdout connected to the journal) each line starts with its syslog
// priority, `<3>` for errors, which journald strips and records, so
// `journalctl -u gaugeway -p err` finds the errors.
import { fstatSync } from 'node:fs';
import { pino, type Logger } from 'pino';

export type { Logger };

/** syslog priorities (sd-daemon(3)) of pino's level names */
const PRIORITY: Record<string, number> = { fatal: 2, error: 3, warn: 4, info: 6, debug: 7, trace: 7 };

/** Prefixes each line with `<priority>` from its level, which pino writes first. */
export function journalLines(destination: NodeJS.WritableStream): { write(line: string): boolean } {
  return {
    write(line: string) {
      const level = /^\{"level":"(\w+)"/.exec(line)?.[1];
      return destination.write(`<${PRIORITY[level ?? 'info'] ?? 6}>${line}`);
    },
  };
}

export interface LoggerOptions {
  /** prefix syslog priorities; default: when standard output is the journal's stream */
  journal?: boolean;
}

/**
 * Whether standard output is the stream systemd connected to the journal: JOURNAL_STREAM
 * names its device and inode (systemd.exec(5)), and children inherit the variable, so a
 * `gaugeway ... > file` run from a service's shell would otherwise write `<6>` before
 * every JSON line. The check sd-journal documents: compare it with fstat(stdout).
 */
export function stdoutIsJournal(env: NodeJS.ProcessEnv = process.env): boolean {
  const [device, inode] = (env.JOURNAL_STREAM ?? '').split(':');
  if (!device || !inode) return false;
  try {
    const out = fstatSync(1, { bigint: true });
    return String(out.dev) === device && String(out.ino) === inode;
  } catch {
    return false; // no standard output at all
  }
}

export function createLogger(level: string, destination?: NodeJS.WritableStream, opts: LoggerOptions = {}): Logger {
  const out = destination ?? process.stdout;
  const journal = opts.journal ?? (destination === undefined && stdoutIsJournal());
  return pino(
    {
      level,
      base: { service: 'gaugeway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token', '*.token', 'password', '*.password'],
        censor: '[redacted]',
      },
    },
    (journal ? journalLines(out) : out) as pino.DestinationStream,
  );
}
