// The chunk catalog's answers that replay depends on (wal-replay.ts skips a sample when
// its raw window has a part numbered above the record).
import t from 'tap';
import { ChunkCatalog } from '../../src/tsdb/catalog.js';
import { MINUTE_RAW } from '../../src/tsdb/keys.js';

t.test('maxPart: the highest part a read of the tier uses in one window', async (t) => {
  const c = new ChunkCatalog();
  t.equal(c.maxPart(1, 0, 100), 0, 'a series with no parts');
  c.add(1, 0, 100, 7);
  c.add(1, 0, 200, 9);
  c.add(1, 0, 100, 3); // added out of order: the catalog keeps (window, part) order
  c.add(1, 60, 100, 12);
  c.add(1, 900, 100, 40);
  t.equal(c.maxPart(1, 0, 100), 7);
  t.equal(c.maxPart(1, 0, 200), 9);
  t.equal(c.maxPart(1, 0, 150), 0, 'a window between two with parts');
  t.equal(c.maxPart(1, 0, 50), 0, 'a window before all');
  t.equal(c.maxPart(1, 0, 300), 0, 'a window after all');
  t.equal(c.maxPart(1, 60, 100), 12, 'each tier its own');
  t.equal(c.maxPart(2, 0, 100), 0, 'another series');
  c.add(1, MINUTE_RAW, 100, 20);
  c.add(1, MINUTE_RAW, 200, 5);
  t.equal(c.maxPart(1, 0, 100), 20, 'raw reads take the parts on whole minutes too');
  t.equal(c.maxPart(1, 60, 100), 20, 'and so do 60 s reads');
  t.equal(c.maxPart(1, 0, 200), 9, 'the higher of the two lists');
  t.equal(c.maxPart(1, 900, 100), 40, 'coarse tiers do not');
  c.remove(1, 0, 100, 7);
  t.equal(c.maxPart(1, 0, 100), 20);
  c.remove(1, MINUTE_RAW, 100, 20);
  t.equal(c.maxPart(1, 0, 100), 3);
});

t.test('highestPart: no part above it was ever added, whatever was removed since', async (t) => {
  const c = new ChunkCatalog();
  t.equal(c.highestPart, 0, 'empty');
  c.add(1, 0, 100, 7);
  c.add(2, 900, 100, 40);
  c.add(1, MINUTE_RAW, 200, 12);
  t.equal(c.highestPart, 40, 'over every series and tier');
  c.remove(2, 900, 100, 40);
  c.removeSeries(1);
  t.equal(c.highestPart, 40, 'an upper bound: removals leave it');
});
