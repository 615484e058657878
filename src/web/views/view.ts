// What every page of the UI gets, and gives back.
import type { Api } from '../api.js';

export interface ViewContext {
  api: Api;
  /** where the page draws */
  main: HTMLElement;
  params: Record<string, string>;
  query: URLSearchParams;
  /** the signed-in account's e-mail */
  email: string;
  navigate(hash: string): void;
  /** replaces the current hash without a new history entry or a re-render */
  remember(hash: string): void;
  setTitle(title: string): void;
}

/** Stops timers and frees charts when the page is left. */
export type Cleanup = () => void;

export type View = (ctx: ViewContext) => Promise<Cleanup | void>;
