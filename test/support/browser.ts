// A real browser for the page tests: Chromium from npm (@sparticuz/chromium, unpacked to /tmp on first use,
// no network), driven by puppeteer-core. One browser per test file; screenshots go to test/artifacts/.

import chromium from '@sparticuz/chromium';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type HTTPRequest, type Page } from 'puppeteer-core';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/**
 * The browser, in English: under LANG=C Chromium's navigator.language is en-US@posix, which Intl refuses
 * (uPlot formats its axes with it).
 */
export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({ executablePath: await chromium.executablePath(), args: [...chromium.args, '--lang=en-US'], headless: true });
}

/** Every request the page sends from now on (URL and headers), for a test to look through. */
export function requestsOf(page: Page): HTTPRequest[] {
  const requests: HTTPRequest[] = [];
  page.on('request', (request) => requests.push(request));
  return requests;
}

/** A full-page screenshot at `width` pixels (or of the window only), kept as test/artifacts/<name>.png (ignored by git). */
export async function screenshot(page: Page, name: string, width: number, { fullPage = true } = {}): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  const viewport = page.viewport();
  await page.setViewport({ width, height: viewport?.height ?? 800 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
  if (viewport) await page.setViewport(viewport);
}

/**
 * Lets the browser save downloads into `dir`; `next()` waits for the next download to complete and
 * answers its text (the file the browser wrote, under the name the page gave it).
 */
export async function downloadsInto(browser: Browser, dir: string): Promise<{ next: () => Promise<{ name: string; text: string }> }> {
  const session = await browser.target().createCDPSession();
  await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir, eventsEnabled: true });
  const names = new Map<string, string>();
  session.on('Browser.downloadWillBegin', (event) => names.set(event.guid, event.suggestedFilename));
  return {
    next: () =>
      new Promise((resolve, reject) => {
        const done = (event: { guid: string; state: string }) => {
          if (event.state === 'inProgress') return;
          session.off('Browser.downloadProgress', done);
          const name = names.get(event.guid) ?? '';
          if (event.state !== 'completed') reject(new Error(`download ${name} ${event.state}`));
          else readFile(join(dir, name), 'utf8').then((text) => resolve({ name, text }), reject);
        };
        session.on('Browser.downloadProgress', done);
      }),
  };
}

/** The little of the DOM the tests read inside a page (the type check has no DOM library: src/ runs on Node). */
export interface PageElement {
  textContent: string | null;
  hidden: boolean;
  value: string;
  href: string;
  children: ArrayLike<PageElement>;
  getAttribute(name: string): string | null;
}
export interface PageGlobal {
  document: {
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement>;
    documentElement: { scrollWidth: number; clientWidth: number };
    cookie: string;
  };
  sessionStorage: { getItem(key: string): string | null; length: number };
  localStorage: { length: number };
}

/** The text of every element `selector` finds, trimmed. */
export function texts(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(
    (s) => Array.from((globalThis as unknown as PageGlobal).document.querySelectorAll(s), (e) => (e.textContent ?? '').trim()),
    selector,
  );
}

/** The rows of a table part (`#daily tbody`), each the texts of its cells. */
export function rows(page: Page, selector: string): Promise<string[][]> {
  return page.evaluate(
    (s) =>
      Array.from((globalThis as unknown as PageGlobal).document.querySelectorAll(`${s} tr`), (tr) =>
        Array.from(tr.children, (cell) => (cell.textContent ?? '').trim()),
      ),
    selector,
  );
}
