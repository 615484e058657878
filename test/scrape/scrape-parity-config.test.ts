// Config checks Prometheus makes (config.go) that Gaugeway makes the same way.
import t from 'tap';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';

function problems(t: Parameters<Parameters<typeof import('tap').test>[1]>[0], scrape: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'gw-scrape-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'c.yaml'), `data_dir: ${dir}\nscrape:\n${scrape}\n`);
  try {
    loadConfig({ file: join(dir, 'c.yaml'), env: {} });
    return [];
  } catch (e) {
    return ((e as { problems?: { path: string; message: string }[] }).problems ?? []).map((p) => `${p.path}: ${p.message}`);
  }
}

t.test('a URL as a static target is refused unless relabel_configs can move it into a parameter', async (t) => {
  t.match(problems(t, `  scrape_configs:\n    - job_name: a\n      static_configs: [{targets: ['127.0.0.1:9100', 'http://127.0.0.1:1/x']}]`), [
    /^scrape\.scrape_configs\[0\]\.static_configs\[0\]\.targets\[1\]: "http:\/\/127\.0\.0\.1:1\/x" is not a valid host:port/,
  ]);
  t.match(problems(t, `  scrape_configs:\n    - job_name: a\n      static_configs: [{targets: ['127.0.0.1:1/metrics']}]`), [/is not a valid host:port/], 'a path too');
  t.same(problems(t, [
    '  scrape_configs:', '    - job_name: blackbox', '      metrics_path: /probe', "      static_configs: [{targets: ['http://127.0.0.1:1/x']}]",
    '      relabel_configs:', '        - {source_labels: [__address__], target_label: __param_target}',
    "        - {target_label: __address__, replacement: '127.0.0.1:9115'}",
  ].join('\n')), [], 'the blackbox exporter pattern is fine');
});
