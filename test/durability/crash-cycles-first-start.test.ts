// kill -9 during the very first start, while LevelDB creates the database: it writes
// MANIFEST-000001, then CURRENT. Killed between the two, the folder holds that manifest
// alone (no log, no table: nothing was ever stored), and the next start refused it as a
// damaged database ("data files but no CURRENT"), so the service could not start again
// without `gaugeway store repair`. Found by killing first starts at random moments.
import t from 'tap';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { Store } from '../../src/store/db.js';

t.test('a database whose creation was cut off before CURRENT opens as a new one', async (t) => {
  const location = join(tempDir(t, 'gw-first-'), 'db');
  mkdirSync(location);
  // what the kill leaves: the lock, LevelDB's info log and a manifest written in part
  writeFileSync(join(location, 'LOCK'), '');
  writeFileSync(join(location, 'LOG'), 'Creating DB\n');
  writeFileSync(join(location, 'MANIFEST-000001'), Buffer.from([0x56, 0x1f, 0x00]));
  const store = await Store.open(location, { sync: true });
  t.teardown(() => store.close());
  await store.db.put('k', 'v', { sync: true });
  t.equal(await store.db.get('k'), 'v', 'it opens, empty and writable');
  t.ok(readdirSync(location).includes('CURRENT'));
});

t.test('...but a manifest beside a log or a table still means a damaged database', async (t) => {
  for (const other of ['000003.log', '000005.ldb', 'MANIFEST-000002']) {
    const location = join(tempDir(t, 'gw-first-'), 'db');
    mkdirSync(location);
    writeFileSync(join(location, 'MANIFEST-000001'), '');
    writeFileSync(join(location, other), '');
    await t.rejects(Store.open(location, { sync: true }), { code: 'E_STORE_CORRUPT', message: /but no CURRENT file/ }, other);
  }
});
