// The transpiler tap's TypeScript loader (ts-node, transpile-only) uses for tests and the
// sources they import: esbuild instead of TypeScript's own emitter (tsconfig.json,
// "ts-node"."transpiler"). Why: every test file is its own process, and TypeScript's
// emitter took about 2.5 CPU seconds in each one that imports the service's ~150 source
// files (tap's ~1.5 s per file and the app's own start-up aside), a fifth or more of the
// suite on a 2-core machine. esbuild strips the types the same way and keeps no state
// between files, which is all transpile-only mode ever did; type errors are tsc's job in
// `npm run build`, which `npm test` runs first.
'use strict';
const { transformSync } = require('esbuild');

/** ts-node's transpiler factory (its TranspilerModule interface). */
exports.create = function create({ service, nodeModuleEmitKind }) {
  const options = service.config.options;
  const tsconfigRaw = {
    compilerOptions: {
      // the class field semantics tsc emits for this target (ES2022: define)
      target: 'es2022',
      useDefineForClassFields: options.useDefineForClassFields ?? true,
      esModuleInterop: options.esModuleInterop,
    },
  };
  return {
    transpile(input, { fileName }) {
      // the package is an ES module package: .ts files are ES modules, .cts CommonJS
      const cjs = nodeModuleEmitKind === 'nodecjs' || fileName.endsWith('.cts');
      const { code, map } = transformSync(input, {
        loader: fileName.endsWith('.tsx') ? 'tsx' : 'ts',
        format: cjs ? 'cjs' : 'esm',
        target: 'es2022',
        platform: 'node',
        sourcemap: 'external',
        sourcefile: fileName,
        tsconfigRaw,
      });
      return { outputText: code, sourceMapText: map };
    },
  };
};
