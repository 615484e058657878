// Module hooks that let tests import TypeScript (installed by ts-register.mjs, which .taprc
// names): a `.ts` file is stripped of its types by esbuild, and a relative `.js` specifier
// names the `.ts` file beside it when there is one (the sources import each other by the
// names tsc emits). Type errors are tsc's job in `npm run build`, which `npm test` runs first.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (parent?.startsWith('file:') && specifier.endsWith('.js') && (specifier.startsWith('./') || specifier.startsWith('../'))) {
    const ts = new URL(specifier.slice(0, -3) + '.ts', parent);
    if (existsSync(ts)) return { url: ts.href, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const { code } = await transform(await readFile(file, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    // ES2022, as tsconfig.json: class fields with define semantics, as tsc emits them
    target: 'es2022',
    platform: 'node',
    // for stack traces and for the coverage report's lines (tap runs with --enable-source-maps)
    sourcemap: 'inline',
    sourcefile: file,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
