// Every example request in docs/composite.md gives the answer printed under it.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { parseComposite } from '../../../src/query/composite/parse.js';
import { evaluateComposite } from '../../../src/query/composite/evaluate.js';
import { compositeView } from '../../../src/query/composite/response.js';
import { MemorySource } from './memory-source.js';
import { readDoc } from './doc-examples.js';

const { data, metrics, examples } = readDoc(fileURLToPath(new URL('../../../docs/composite.md', import.meta.url)));
const DOCUMENTED = ['series', 'sum', 'mean', 'min', 'max', 'multiply', 'divide', 'subtract', 'derive', 'integrate', 'rate', 'scale',
  'window', 'moving_average', 'timeshift', 'fill', 'zero_fill', 'top', 'bottom', 'filter', 'group_by'];

t.test('the doc has example data and an example of every function', async (t) => {
  t.ok(data.length > 0);
  for (const fn of DOCUMENTED) t.ok(examples.some((e) => e.compose.startsWith(`${fn}(`)), fn);
});

for (const e of examples) {
  t.test(`docs/composite.md:${e.line} ${e.compose}`, async (t) => {
    const source = new MemorySource(data, metrics);
    // end_time is inclusive, as in every measurement query
    const out = await evaluateComposite(parseComposite(e.compose), source, { from: e.start, to: e.end + 1, resolution: e.resolution });
    t.same(compositeView(out), e.answer);
  });
}
