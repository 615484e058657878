// Run by `--import` in each test process (and each worker thread it starts, which inherits
// that flag): installs ts-hooks.mjs.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
