// The lists of restart-only keys in docs/operations.md ("Reload") and in the header of
// config/example.yaml name every key the schema marks `reload: restart`: an operator
// who changes one of the others expects a reload to apply it.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { markedKeys } from '../../src/config/reload-marks.js';

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');

/** The restart keys as the docs write them: a section whose keys all restart is `section.*`. */
function restartKeys(): string[] {
  const keys = markedKeys();
  const names = new Set<string>();
  for (const k of keys.filter((m) => m.reload === 'restart')) {
    const parent = k.path.slice(0, -1).join('.');
    const wholeSection = k.path.length > 2 && keys.filter((m) => m.path.slice(0, -1).join('.') === parent).every((m) => m.reload === 'restart');
    names.add(wholeSection ? `${parent}.*` : k.path.join('.'));
  }
  return [...names];
}

t.test('operations.md names every restart-only key', async (t) => {
  const bullet = /- \*\*restart-only keys\*\*:([\s\S]*?)\n\n/.exec(read('docs/operations.md'))?.[1] ?? '';
  for (const key of restartKeys()) t.match(bullet, `\`${key}\``, key);
});

t.test('the header of config/example.yaml names every restart-only key', async (t) => {
  const text = read('config/example.yaml');
  const header = text.slice(0, text.indexOf('\nhttp:')).replace(/\n#\s*/g, ' ');
  const sentence = header.slice(header.indexOf('except the restart-only keys'), header.indexOf('The schema marks every key'));
  for (const key of restartKeys()) t.match(sentence, key, key);
});
