// Building DOM nodes from code: text always goes in as text nodes, never as HTML, so a
// metric name or an annotation title can never become markup (and the CSP forbids
// inline script anyway).

type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | Handler | null | undefined>;

/** Properties, not attributes: what the user can change after the element is built. */
const PROPERTIES = new Set(['value', 'checked', 'selected', 'disabled', 'hidden', 'required', 'readOnly', 'multiple']);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false && !PROPERTIES.has(name)) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (PROPERTIES.has(name)) Reflect.set(el, name, value);
    else el.setAttribute(name === 'className' ? 'class' : name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces everything in `parent` with `children`. */
export function replace(parent: Node, ...children: (Child | Child[])[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/** A one-line message in the page's status area style: `kind` picks the colour. */
export function notice(kind: 'error' | 'info' | 'ok', text: string): HTMLElement {
  return h('p', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** Only http(s) links from stored data are followed: no javascript: or data: URLs. */
export function safeHref(href: string): string | null {
  try {
    const url = new URL(href, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

export function formatTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
