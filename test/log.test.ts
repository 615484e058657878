import t from 'tap';
import { captureLog } from './helpers/capture-log.js';

t.test('the logger redacts credentials wherever a caller puts them', async (t) => {
  const log = captureLog('debug');
  const secret = 'Basic c2VjcmV0OnNlY3JldA==';
  log.logger.info({ req: { headers: { authorization: secret, host: 'x' } } }, 'request');
  log.logger.info({ headers: { authorization: secret } }, 'headers');
  log.logger.info({ token: 'tok-1', account: { token: 'tok-2', password: 'pw-1' }, password: 'pw-2' }, 'fields');
  const text = log.text();
  for (const leaked of [secret, 'tok-1', 'tok-2', 'pw-1', 'pw-2']) t.notOk(text.includes(leaked), `no ${leaked}`);
  const [first] = log.lines();
  t.match(first, { service: 'gaugeway', msg: 'request', req: { headers: { authorization: '[redacted]', host: 'x' } } });
});
