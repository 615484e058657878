// One pino root logger; components take child loggers. Secrets never reach the log.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gaugeway' },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token', '*.token', 'password', '*.password'],
        censor: '[redacted]',
      },
    },
    (destination ?? process.stdout) as pino.DestinationStream,
  );
}
