// http.external_url: behind a proxy that publishes Gaugeway under another host or a
// sub-path (https://metrics.example.com/gw/), the Location headers Gaugeway sends must
// name that address, not its own. Routes set paths (`/v1/metrics/x`); this turns them
// into absolute URLs under the external base, in one place.
import type { Middleware } from './state.js';

/** `base` + `path`, with exactly one slash between them. */
export function externalUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

/** `base` is read per request, so a reload applies at once. */
export function externalLocations(base: () => string | null): Middleware {
  return async (ctx, next) => {
    await next();
    const url = base();
    // Koa answers undefined for a header never set
    const location: unknown = ctx.response.get('Location');
    if (url && typeof location === 'string' && location.startsWith('/')) ctx.set('Location', externalUrl(url, location));
  };
}
