// `npm start` on a fresh clone must work without a separate build step: build (server
// and web UI, as `npm run build` does) when dist/ is missing or older than any source.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}
const age = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
const built = Math.min(age('dist/main.js'), age('dist/web/index.html'));
if (!built || newest('src') > built) {
  const tsc = 'node_modules/typescript/bin/tsc';
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, [tsc, '-p', 'src/web/tsconfig.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build-web.js'], { stdio: 'inherit' });
}
