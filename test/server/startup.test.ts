// A start that fails half-way releases what it took: the port and the LevelDB lock.
import t from 'tap';
import net from 'node:net';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { startServer, adminSocketPath } from '../../src/server.js';
import { createLogger } from '../../src/log.js';
import { captureLog } from '../helpers/capture-log.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

/** A loopback port that was free a moment ago. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(port, '127.0.0.1');
    probe.on('error', () => resolve(false));
    probe.on('connect', () => { probe.destroy(); resolve(true); });
  });
}

t.test('when the admin socket cannot be created, start fails and frees the port and the data dir', async (t) => {
  const dir = tempDir(t, 'gw-start-');
  const file = writeServeConfig(dir);
  const port = await freePort();
  const config = () => loadConfig({ file, env: {}, flags: { listen: `127.0.0.1:${port}` } });
  const blocker = join(dir, 'data', 'admin.sock', 'in-the-way');
  mkdirSync(blocker, { recursive: true });

  await t.rejects(startServer(config(), captureLog().logger), 'a folder where the socket goes');
  t.equal(await accepts(port), false, 'the port is released');

  rmSync(join(dir, 'data', 'admin.sock'), { recursive: true });
  const server = await startServer(config(), captureLog().logger);
  t.teardown(() => server.close());
  t.equal(server.port, port, 'the data dir is not left locked, nor the port taken');
});

// Scripts, the journal and tests wait for "gaugeway listening" and then use the CLI's
// account and token commands, which talk to the admin socket: it is up by then.
t.test('the admin socket is up when "gaugeway listening" is logged', async (t) => {
  const dir = tempDir(t);
  const file = writeServeConfig(dir);
  const config = loadConfig({ file, env: {} });
  let socketThen: boolean | null = null;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (chunk.toString('utf8').includes('gaugeway listening')) socketThen = existsSync(adminSocketPath(config.data_dir));
      done();
    },
  });
  const server = await startServer(config, createLogger('info', sink));
  t.teardown(() => server.close());
  t.equal(socketThen, true);
});
