import t from 'tap';
import { formatDuration, parseDuration, parseSize } from '../../src/scrape/units.js';

t.test('Prometheus durations', async (t) => {
  const good: Array<[string, number]> = [
    ['0', 0], ['0s', 0], ['15s', 15_000], ['500ms', 500], ['1m30s', 90_000], ['1h30m', 5_400_000], ['2h', 7_200_000],
    ['1d', 86_400_000], ['1w', 604_800_000], ['1y', 31_536_000_000], ['1y2w3d4h5m6s7ms', 31_536_000_000 + 2 * 604_800_000 + 3 * 86_400_000 + 4 * 3_600_000 + 5 * 60_000 + 6_000 + 7],
    ['90s', 90_000],
  ];
  for (const [text, ms] of good) t.equal(parseDuration(text), ms, text);
  for (const bad of ['', '15', '1.5m', '1m1h', '-1s', '1 m', 's', '1M', '1h 30m', '9'.repeat(30) + 'y']) t.equal(parseDuration(bad), null, JSON.stringify(bad));
});

t.test('durations are spelt as Prometheus spells them', async (t) => {
  const cases: Array<[number, string]> = [
    [0, '0s'], [500, '500ms'], [15_000, '15s'], [90_000, '1m30s'], [3_600_000, '1h'], [86_400_000 * 90, '90d'],
    [604_800_000, '1w'], [31_536_000_000, '1y'], [1_500, '1s500ms'], [86_400_000 + 1, '1d1ms'],
  ];
  for (const [ms, text] of cases) {
    t.equal(formatDuration(ms), text, String(ms));
    t.equal(parseDuration(text), ms, `${text} reads back`);
  }
});

t.test('sizes, in powers of 1024 as Prometheus reads them', async (t) => {
  const good: Array<[string | number, number]> = [
    [0, 0], ['0', 0], [1024, 1024], ['512B', 512], ['1KB', 1024], ['10MB', 10_485_760], ['1GB', 1_073_741_824], ['1.5KiB', 1536], ['2MiB', 2_097_152], ['1TB', 1024 ** 4],
  ];
  for (const [value, bytes] of good) t.equal(parseSize(value), bytes, String(value));
  for (const bad of ['', '10', '10mb', '10 MB', 'MB', '1ZB', -1, 1.5]) t.equal(parseSize(bad), null, JSON.stringify(bad));
});
