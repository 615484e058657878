// Head snapshots of the layout before incremental checkpoints are read once at start and
// written as parts by the start's checkpoint. A snapshot must go in the batch of the parts
// that hold its points: when a shutdown deadline cut that checkpoint short, or a crash
// came between its batches, the next start loaded the snapshots again beside the parts
// written from them, and every point of those windows read back twice.
// Also here: parts left behind for a deleted metric are deleted by the next start.
import t, { type Test } from 'tap';
import { valueSample } from '../../src/tsdb/sample.js';
import { openEngine, engineDir } from '../helpers/engine.js';
import { encodeChunk } from '../../src/tsdb/chunk.js';
import { chunkKey, headKey, WINDOW, windowOf } from '../../src/tsdb/keys.js';

const HOUR = 3600;
const SERIES = 1500; // the start's checkpoint then takes several batches
const open = (dir: string, writesLeft = Infinity) => openEngine(dir, {}, writesLeft);
const tempDir = (t: Test) => engineDir(t, 'gw-snapshots-');

const tagsOf = (i: number) => Object.freeze([Object.freeze(['host', `h${i}`] as const)]);

/** Each series: one point stored as a part, and an old-layout snapshot of its window holding two more. */
async function oldLayoutDir(dir: string) {
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), base, 1)));
  await a.engine.close();
  const ids = a.engine.select(1, 'm', { op: 'all' }).map((r) => r.id);
  const snapshot = { t: [base + HOUR, base + 2 * HOUR], count: [1, 1], sum: [2, 3], min: [2, 3], max: [2, 3], last: [2, 3], sumsq: [4, 9], lastT: [base + HOUR, base + 2 * HOUR] };
  for (const id of ids) await a.store.binary('head').put(headKey(1, id, base), encodeChunk(snapshot, base));
  await a.crash();
  return { base, ids };
}

/** Series that do not read back [1, 2, 3] after a clean start and stop. */
async function wrongSeries(dir: string, base: number, ids: number[]): Promise<number> {
  const c = await open(dir);
  const read = await c.engine.read(1, ids, 0, base, base + WINDOW);
  await c.engine.close();
  await c.crash();
  return read.filter((p) => JSON.stringify(p.sum) !== '[1,2,3]').length;
}

t.test('a shutdown deadline that cuts the start\'s checkpoint short: no snapshot is read twice', async (t) => {
  const dir = tempDir(t);
  const { base, ids } = await oldLayoutDir(dir);
  const b = await open(dir); // its checkpoint takes every snapshot, in the background
  await b.engine.close(() => true); // past the deadline: the checkpoint stops between series
  await b.crash();
  t.equal(await wrongSeries(dir, base, ids), 0, 'every series reads its three points once');
});

t.test('a crash between the batches of the start\'s checkpoint: no snapshot is read twice', async (t) => {
  const dir = tempDir(t);
  const { base, ids } = await oldLayoutDir(dir);
  const b = await open(dir, 1); // one batch lands, then nothing more is written
  while (b.commit.left > 0) await new Promise((r) => setImmediate(r));
  await b.crash(); // waits for that batch
  t.equal(await wrongSeries(dir, base, ids), 0, 'every series reads its three points once');
  const c = await open(dir);
  await c.engine.close();
  t.same(await c.store.binary('head').keys().all(), [], 'a clean checkpoint deletes every snapshot');
  await c.crash();
});

t.test('parts of a series whose record is gone (a metric deleted during a shutdown) are deleted at the next start', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - WINDOW;
  await a.engine.append(1, [valueSample('kept', tagsOf(0), base, 1)]);
  await a.engine.close();
  const orphan = chunkKey(1, 0, 999_999, base, 1);
  await a.store.binary('pts').put(orphan, Buffer.from('left behind'));
  await a.crash();
  const b = await open(dir);
  await b.engine.close(); // the start's checkpoint, then the shutdown's
  const keys = await b.store.binary('pts').keys().all();
  t.notOk(keys.includes(orphan), 'the orphan part is gone');
  t.ok(keys.length > 0, 'the kept series\' parts stay');
  await b.crash();
});
