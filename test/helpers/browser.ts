// A real Chromium (Debian's package, driven by playwright-core) for the web UI's tests.
// Headless, a fresh profile, and none of Chromium's own network chatter (this machine's
// network is closed, and the tests speak only to 127.0.0.1).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.GAUGEWAY_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser to drive, or why there is none. */
export function findChromium(): { path: string } | { missing: string } {
  const path = CANDIDATES.find((p): p is string => !!p && existsSync(p));
  return path ? { path } : { missing: 'no Chromium found (install Debian\'s chromium package, or set GAUGEWAY_CHROMIUM)' };
}

export async function launchChromium(t: Test, path: string): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: path,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    timeout: 120_000,
  });
  t.teardown(() => browser.close());
  return browser;
}

/** Where screenshots go: the test output, outside the source tree. */
export function screenshotDir(): string {
  const dir = join(process.cwd(), '.tap', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
