// A pino logger whose JSON lines the test can read back, and a server logging to one.
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { createLogger, type Logger } from '../../src/log.js';
import { loadConfig } from '../../src/config/load.js';
import { startServer } from '../../src/server.js';
import { writeServeConfig } from './tmp.js';

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

/**
 * A real server from `<dir>/config.yaml` (see writeServeConfig) whose log the test reads;
 * closed in teardown unless the test closes it first (to restart on the same dir).
 */
export async function startLogged(t: Test, dir: string, extra = '', level = 'info') {
  const file = writeServeConfig(dir, extra);
  const log = captureLog(level);
  const load = () => loadConfig({ file, env: {} });
  const server = await startServer(load(), log.logger, { load });
  let closed = false;
  const close = async () => { if (!closed) { closed = true; await server.close(); } };
  t.teardown(close);
  return { server, log, file, close };
}
