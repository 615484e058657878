// Writes config/schema.json from the ajv schema in src/config/schema.ts (via dist/), for
// editors: config/example.yaml names it in its yaml-language-server comment. A test
// fails when the committed file and the schema differ. Run: npm run build && node scripts/write-config-schema.js
import { writeFileSync } from 'node:fs';
import { configSchema } from '../dist/config/schema.js';

const schema = { $schema: 'http://json-schema.org/draft-07/schema#', title: 'Gaugeway configuration', ...configSchema };
writeFileSync(new URL('../config/schema.json', import.meta.url), JSON.stringify(schema, null, 2) + '\n');
