// Bundles the web UI (src/web/) into dist/web: one script and one stylesheet whose
// names carry their content hash (served as immutable), and index.html naming them.
// Type-checking is tsc's job (`tsc -p src/web/tsconfig.json`, in `npm run build`).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const OUT = 'dist/web';
rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, 'assets'), { recursive: true });
const result = await build({
  entryPoints: { app: 'src/web/main.ts' },
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
  platform: 'browser',
  outdir: join(OUT, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((n) => /^app-.*\.js$/.test(n));
const css = outputs.find((n) => /^app-.*\.css$/.test(n));
if (!js || !css) throw new Error(`esbuild did not produce app.js and app.css: ${outputs.join(', ')}`);
const html = readFileSync('src/web/index.html', 'utf8').replace('%APP_JS%', `assets/${js}`).replace('%APP_CSS%', `assets/${css}`);
writeFileSync(join(OUT, 'index.html'), html);
