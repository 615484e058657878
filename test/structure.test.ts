// The import rule of docs/architecture.md, checked: every import in src/ runs downward
// through the layers below, and nothing under src/http's level imports Koa. A new folder
// under src/ must be given its place here before anything may import it.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The folder (or top-level file) a path of src/ belongs to. */
function layerOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  if (rel.length > 1) return rel[0]!;
  return rel[0]!.replace(/\.ts$/, '');
}

const TOP = ['app', 'server', 'runtime', 'main', 'cli'];
const LEAVES = ['errors', 'log', 'cron', 'durable-files'];

/**
 * What each layer may import (besides itself). `types` may be imported only with
 * `import type`. The top of the program (TOP) may import anything.
 */
const ALLOWED: Record<string, { values: string[]; types?: string[] }> = {
  http: { values: ['ingest', 'query', 'domain', 'auth', 'schema', 'match', 'config', 'selfmetrics', 'notifiers', ...LEAVES], types: ['tsdb', 'store', 'alerts', 'scrape'] },
  // notification plugins' contract, registry and delivery: no app layer below them
  notifiers: { values: ['store', ...LEAVES] },
  alerts: { values: ['domain', 'tsdb', 'query', 'notifiers', 'store', ...LEAVES] },
  ingest: { values: ['domain', 'tsdb', 'store', 'schema', 'match', ...LEAVES] },
  query: { values: ['domain', 'tsdb', 'match', 'schema', ...LEAVES] },
  domain: { values: ['store', 'schema', 'match', ...LEAVES] },
  auth: { values: ['store', 'config', ...LEAVES] },
  tsdb: { values: ['store', 'match', ...LEAVES] },
  // the scrape loop feeds the same ingest path as a push
  scrape: { values: ['ingest', 'domain', 'tsdb', ...LEAVES] },
  store: { values: [...LEAVES] },
  // the `scrape:` section's schema and rules live with the scraper (src/scrape/config.ts)
  config: { values: ['match', 'scrape', ...LEAVES] },
  schema: { values: [...LEAVES] },
  match: { values: [] },
  errors: { values: [] },
  'durable-files': { values: [] },
  log: { values: [] },
  // node-cron's jobs, their missed runs logged
  cron: { values: [], types: ['log'] },
  selfmetrics: { values: [] },
  'admin-socket': { values: [] },
  // the browser half (bundled by esbuild, talks to /v1 only): pure modules of domain at most
  web: { values: ['domain'] },
};

/** Koa and its middleware belong to src/http (and the top, which builds the app). */
const KOA = /^(koa|koa-.*|@koa\/.*)$/;
const MAY_IMPORT_KOA = new Set(['http', ...TOP]);

interface Import {
  specifier: string;
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes = !!clause && (clause.isTypeOnly || (!clause.name && !!named && ts.isNamedImports(named)
        && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) out.push({ specifier: arg.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every import that breaks the rule, as `from -> to (why)`. */
function forbiddenEdges(files: string[]): string[] {
  const bad: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    const name = relative(SRC, file);
    for (const { specifier, typeOnly } of importsOf(file)) {
      if (!specifier.startsWith('.')) {
        if (KOA.test(specifier) && !MAY_IMPORT_KOA.has(from)) bad.push(`${name} -> ${specifier} (only src/http may use Koa)`);
        continue;
      }
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (!target.startsWith(SRC)) { bad.push(`${name} -> ${specifier} (outside src)`); continue; }
      const to = layerOf(target);
      if (to === from || TOP.includes(from)) continue;
      const rule = ALLOWED[from];
      if (!rule) { bad.push(`${name} -> ${specifier} (${from} has no place in the layers)`); continue; }
      if (rule.values.includes(to)) continue;
      if (typeOnly && rule.types?.includes(to)) continue;
      bad.push(`${name} -> ${relative(SRC, target)} (${from} may not import ${rule.types?.includes(to) ? `values from ${to}, only types` : to})`);
    }
  }
  return bad;
}

t.test('imports in src/ run one way, down the layers', async (t) => {
  const files = sourceFiles(SRC);
  t.ok(files.length > 50, 'found the sources');
  t.same(forbiddenEdges(files), []);
});

t.test('every folder and top-level file of src/ has a place in the layers', async (t) => {
  const layers = new Set(sourceFiles(SRC).map(layerOf));
  const unplaced = [...layers].filter((l) => !ALLOWED[l] && !TOP.includes(l));
  t.same(unplaced, []);
});
