// The web UI (docs/ui.md): static files that scripts/build-web.js bundles from src/web/
// into dist/web, served at `/` and, when http.external_url has a path, under that path
// too (for a proxy that passes the prefix on instead of stripping it). The UI talks only
// to the public /v1 API; this module only hands out files, with the headers a page that
// holds an API token needs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Middleware } from './state.js';

/** dist/web of the installation, whether this module runs from dist/ or from src/ (tests). */
export const UI_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * No inline script or style, nothing from another origin, no framing: a page holding an
 * API token must not run code it did not ship. (Setting element.style from script, as
 * uPlot does, is not inline style and stays allowed.)
 */
export const UI_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

interface UiFile {
  body: Buffer;
  type: string;
  etag: string;
  /** bundle names carry their content hash; only index.html must be asked again */
  immutable: boolean;
}

/** The built files by path relative to the UI root (`index.html`, `assets/app-….js`). */
export type UiFiles = ReadonlyMap<string, UiFile>;

/** Reads the built UI once at start; null when it was never built. */
export function loadUiFiles(dir = UI_DIR): UiFiles | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const files = new Map<string, UiFile>();
  const walk = (sub: string): void => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) { walk(rel); continue; }
      const type = TYPES[extname(e.name)];
      if (!type) continue;
      const body = readFileSync(join(dir, rel));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      files.set(rel, { body, type, etag, immutable: rel.startsWith('assets/') });
    }
  };
  walk('');
  return files;
}

/**
 * Serves the UI's files for GET and HEAD; any other path goes on down the chain. Runs
 * before the HTTPS rule, so a browser pointed at a plain-HTTP URL gets the page that
 * tells its user to switch, instead of a bare JSON 403; the page never sends the token
 * over plain HTTP.
 */
export function webUi(files: UiFiles | null, externalUrl: () => string | null): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const rel = uiPath(ctx.path, externalUrl());
    if (rel === null) return next();
    const file = files?.get(rel);
    if (!file) {
      if (rel !== 'index.html') return next();
      // a source checkout that was never built: say how to build rather than a bare 404
      ctx.status = 503;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { errors: { system: ['The web UI is not built: run `npm run build`.'] } };
      return undefined;
    }
    for (const [name, value] of Object.entries(UI_HEADERS)) ctx.set(name, value);
    ctx.set('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('ETag', file.etag);
    ctx.type = file.type;
    if (ctx.get('if-none-match') === file.etag) { ctx.status = 304; return undefined; }
    ctx.body = file.body;
    return undefined;
  };
}

/** The file a request path names under `/` or the external path, or null when it is not the UI's. */
export function uiPath(path: string, externalUrl: string | null): string | null {
  const roots = ['/'];
  const external = externalUrl ? new URL(externalUrl).pathname.replace(/\/*$/, '/') : '/';
  if (external !== '/') roots.push(external);
  for (const root of roots) {
    if (path === root || path === `${root}index.html` || (root !== '/' && path === root.slice(0, -1))) return 'index.html';
    if (path.startsWith(`${root}assets/`)) {
      const rel = path.slice(root.length);
      // only plain names: no `..`, no hidden files, no nested surprises
      return /^assets\/[A-Za-z0-9_-]+(?:\.[A-Za-z0-9]+)+$/.test(rel) ? rel : null;
    }
  }
  return null;
}
