import t from 'tap';
import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileSdError, parseFileSd } from '../../src/scrape/file-sd.js';
import { FileDiscovery, MAX_FILE_BYTES } from '../../src/scrape/discovery.js';
import { tempDir } from '../helpers/tmp.js';

t.test('YAML and JSON target groups, each with __meta_filepath', async (t) => {
  const yaml = `
- targets: ['web-1:9100', 'web-2:9100']
  labels:
    env: prod
    rack: 12
- targets: ['db:9187']
- labels: {only: labels}
`;
  t.same(parseFileSd(yaml, '/etc/sd/web.yml'), [
    { targets: ['web-1:9100', 'web-2:9100'], labels: [['env', 'prod'], ['rack', '12'], ['__meta_filepath', '/etc/sd/web.yml']], source: '/etc/sd/web.yml:0' },
    { targets: ['db:9187'], labels: [['__meta_filepath', '/etc/sd/web.yml']], source: '/etc/sd/web.yml:1' },
    { targets: [], labels: [['only', 'labels'], ['__meta_filepath', '/etc/sd/web.yml']], source: '/etc/sd/web.yml:2' },
  ]);
  const json = '[{"targets": ["a:1"], "labels": {"job": "override", "empty": ""}}]';
  t.same(parseFileSd(json, '/sd/a.JSON'), [{ targets: ['a:1'], labels: [['job', 'override'], ['__meta_filepath', '/sd/a.JSON']], source: '/sd/a.JSON:0' }]);
  t.same(parseFileSd('', '/sd/empty.yaml'), [], 'an empty file has no targets');
  t.same(parseFileSd('# nothing yet\n', '/sd/empty.yaml'), []);
  t.same(parseFileSd('[]', '/sd/empty.json'), []);
});

t.test('broken files say what and where', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['- targets: [a\n- labels: {', 'x.yml', /^x\.yml:\d+: /],
    ['{"targets": [', 'x.json', /^x\.json: not valid JSON/],
    ['targets: [a]', 'x.yml', /^x\.yml: must be a list of target groups/],
    ['- just a string', 'x.yml', /^x\.yml: \[0\]: must be a target group/],
    ['- {targets: [a], labels: {bad-name: x}}', 'x.yml', /^x\.yml: \[0\]\.labels\.bad-name: is not a label name/],
    ['- {targets: [a], lables: {x: y}}', 'x.yml', /^x\.yml: \[0\]\.lables: unknown key "lables"/],
    ['- {targets: a}', 'x.yml', /^x\.yml: \[0\]\.targets: must be a list of host:port strings/],
    ['- {targets: [{a: 1}]}', 'x.yml', /must be a list of host:port strings/],
    ['- {targets: [a], labels: [x]}', 'x.yml', /^x\.yml: \[0\]\.labels: must map label names to values/],
    ['- {targets: [a], labels: {x: {y: z}}}', 'x.yml', /must map label names to values/],
  ];
  for (const [text, path, message] of cases) t.throws(() => parseFileSd(text, path), { name: 'FileSdError', message }, text);
  t.ok(new FileSdError('x') instanceof Error);
});

t.test('FileDiscovery: a file past 16 MiB is refused and keeps its last good groups; unchanged text is not parsed again', async (t) => {
  const dir = tempDir(t, 'gw-sd-');
  const file = join(dir, 'targets.json');
  writeFileSync(file, JSON.stringify([{ targets: ['127.0.0.1:9100'], labels: { team: 'a' } }]));
  const changes: number[] = [];
  const sd = new FileDiscovery([join(dir, '*.json')], 3_600_000, (groups) => changes.push(groups.length), () => {});
  t.teardown(() => sd.stop());
  await sd.start();
  t.same(sd.groups().map((g) => g.targets), [['127.0.0.1:9100']]);
  t.same(changes, [1]);

  await sd.refresh();
  t.same(changes, [1], 'the same text again: no change reported');

  truncateSync(file, MAX_FILE_BYTES + 1);
  await sd.refresh();
  t.equal(sd.errors.get(file), `file larger than 16 MiB (${MAX_FILE_BYTES + 1} bytes)`);
  t.same(sd.groups().map((g) => g.targets), [['127.0.0.1:9100']], 'its last good groups stay');
});

t.test('FileDiscovery: a broken file that is deleted takes its error with it; the same text again is reported again', async (t) => {
  const dir = tempDir(t, 'gw-sd-');
  const file = join(dir, 'broken.json');
  writeFileSync(file, '[{"targets": [');
  const errors: string[] = [];
  const sd = new FileDiscovery([join(dir, '*.json')], 3_600_000, () => {}, (f) => errors.push(f));
  t.teardown(() => sd.stop());
  await sd.start();
  t.same(errors, [file]);
  t.ok(sd.errors.has(file));
  rmSync(file);
  await sd.refresh();
  t.notOk(sd.errors.has(file), 'gone with the file');
  writeFileSync(file, '[{"targets": [');
  await sd.refresh();
  t.same(errors, [file, file], 'written again broken: said again');
});
