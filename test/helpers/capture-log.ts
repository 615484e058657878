// A pino logger whose JSON lines the test can read back.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

export interface CapturedLog {
  logger: Logger;
  text(): string;
  lines(): Record<string, unknown>[];
}

export function captureLog(level = 'info'): CapturedLog {
  let text = '';
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { text += chunk.toString('utf8'); done(); } });
  return {
    logger: createLogger(level, sink),
    text: () => text,
    lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
