// What a person sees in a real browser (Chromium from npm, test/support/browser.ts) on the real app: the
// landing page, the API reference rendered by Redoc, and the usage dashboard read with a key. One browser
// and one tab for the file; screenshots of each page go to test/artifacts/.

import { expect } from 'chai';
import { rm } from 'node:fs/promises';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { issueKey } from '../../../src/metering/keys.js';
import { METHODS } from '../../../src/http/pages/reference.js';
import { contract, type Node } from '../../../src/shared/contract.js';
import { startTestAppWithCatalog, tempDir, type TestApp } from '../../support/app.js';
import { downloadsInto, launchBrowser, requestsOf, rows, screenshot, texts, type PageGlobal } from '../../support/browser.js';

interface Figures {
  requests: number;
  records: number;
  errors: number;
  refused: number;
  overage_usd: number;
}
interface Analytics {
  data: (Figures & { date: string; group?: string })[];
  totals: Figures;
}
/** What the dashboard's script leaves on `window.dashboard` for a reader of the page: its charts and days. */
interface Shown {
  days: string[];
  loads: number;
  charts: Record<string, { data: number[][]; series: { label: string }[] }>;
}

const FIGURES = ['requests', 'records', 'errors', 'refused', 'overage_usd'] as const;
const DESKTOP = 1280;
const PHONE = 375;
/** An image Redoc always loads from its vendor's CDN. */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const MISSING_JOB = '/v1/jobs/00000000-0000-4000-8000-000000000000';

const utcDay = (at: Date) => at.toISOString().slice(0, 10);
/** A figure as the dashboard writes it (1,234 or $0.00) as a number. */
const number = (text: string) => Number(text.replace(/[$,]/g, ''));

describe('pages in a browser: the landing page, the API reference and the usage dashboard', function () {
  this.timeout(120_000);
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  /** Every request the tab sent, over the whole file. */
  let sent: HTTPRequest[];
  /** What the pages' Content-Security-Policy kept the browser from doing, as its console said. */
  const policyViolations: string[] = [];
  /** Errors the pages' scripts raised. */
  const scriptErrors: string[] = [];

  before(async () => {
    [app, browser] = await Promise.all([startTestAppWithCatalog({ jobs: 60, seed: 17 }), launchBrowser()]);
    page = await browser.newPage();
    await page.setViewport({ width: DESKTOP, height: 900 });
    sent = requestsOf(page);
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) policyViolations.push(message.text());
    });
    page.on('pageerror', (error) => scriptErrors.push(String(error)));
  });
  afterEach('no page raised a script error or did what its policy forbids (but for the logo of Redoc)', () => {
    expect(scriptErrors).to.deep.equal([]);
    expect(policyViolations.filter((message) => !message.includes(`'${REDOC_LOGO}'`))).to.deep.equal([]);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = async (path: string) => {
    const res = await page.goto(`${app.url}${path}`, { waitUntil: 'load' });
    expect(res?.status(), path).to.equal(200);
  };
  const text = async (selector: string) => (await texts(page, selector))[0];
  const attribute = (selector: string, name: string) =>
    page.evaluate((s, n) => (globalThis as unknown as PageGlobal).document.querySelector(s)!.getAttribute(n), selector, name);

  it('/ shows the catalog watermark and job count, and every link on it leads to a page that loads', async () => {
    await open('/');
    const catalog = app.service.ctx.publications.catalog!;
    expect(await text('#watermark')).to.equal(catalog.watermark);
    expect(await text('#job-count')).to.equal(catalog.manifest.counts.jobs.toLocaleString('en-US'));
    const links = await page.evaluate(() =>
      Array.from((globalThis as unknown as PageGlobal).document.querySelectorAll('a[href]'), (a) => a.href),
    );
    expect(links.map((link) => new URL(link).pathname)).to.include.members(['/docs', '/dashboard', '/openapi.yaml', '/openapi.json']);
    for (const link of new Set(links.map((l) => l.split('#')[0]!))) expect((await fetch(link)).status, link).to.equal(200);
    await screenshot(page, 'landing', DESKTOP);
    await Promise.all([page.waitForNavigation(), page.click('nav a[href="/dashboard"]')]);
    expect(await text('h1')).to.equal('Usage dashboard');
  });

  it('/docs renders every operation of the contract in its side menu, and an operation opened shows its samples', async () => {
    await open('/docs');
    await page.waitForSelector('li[data-item-id*="/operation/"]');
    const menu = await texts(page, 'li[data-item-id*="/operation/"] > label');
    const paths = contract().paths as Record<string, Node>;
    const operations = Object.values(paths).flatMap((item) =>
      METHODS.filter((m) => item[m] !== undefined).map((method) => ({ method, summary: String((item[method] as Node).summary) })),
    );
    for (const { method, summary } of operations) expect(menu, summary).to.include(`${method}${summary}`);
    expect(operations.length).to.be.greaterThan(15);

    await page.click('li[data-item-id="tag/jobs"] > label');
    await page.waitForSelector('li[data-item-id="tag/jobs/operation/listJobs"] > label', { visible: true });
    await page.click('li[data-item-id="tag/jobs/operation/listJobs"] > label');
    const section = '[data-section-id="tag/jobs/operation/listJobs"]';
    await page.waitForSelector(`${section} [role=tab]`, { visible: true });
    expect(await texts(page, `${section} [role=tab]`)).to.include.members(['curl', 'JavaScript (fetch)', 'Python (requests)']);
    const [python] = await page.$$(`${section} [role=tab]::-p-text(Python (requests))`);
    await python!.click();
    const panels = await texts(page, `${section} [role=tabpanel].react-tabs__tab-panel--selected`);
    expect(panels.join('\n')).to.include(`requests.get(`).and.include(`${app.url}/v1/jobs`);
    // The reference is one very long page: the window's view of the operation opened (a full page takes seconds).
    await screenshot(page, 'docs', DESKTOP, { fullPage: false });
    // Redoc always draws its vendor's logo from a CDN: the page's policy refuses it before it leaves.
    const foreign = sent.map((r) => r.url()).filter((url) => /^https?:/.test(url) && !url.startsWith(app.url));
    expect(foreign, 'every request of the reference goes to this server, or is refused').to.deep.equal([REDOC_LOGO]);
    expect(policyViolations.join('\n')).to.match(/Loading the image '.+' violates .+ The action has been blocked/);
  });

  describe('/dashboard', () => {
    let key: string;
    let keyId: string;
    let otherKeyId: string;
    /** Every key the tab was given: none may appear in a URL. */
    const keys: string[] = ['jps_live_nokey.nosecret'];
    /** 429s the account met: each is a refused call of its day. */
    let refusals = 0;
    let downloads: string;
    const today = utcDay(new Date());
    const monthStart = `${today.slice(0, 8)}01`;

    const call = (path: string, init: RequestInit = {}, bearer = key) =>
      fetch(`${app.url}${path}`, { ...init, headers: { authorization: `Bearer ${bearer}`, ...(init.headers as Record<string, string>) } });
    const analytics = async (query: string) => (await (await call(`/v1/usage/analytics?${query}`)).json()) as Analytics;
    const settled = () => app.service.ctx.meter.idle();
    const shown = () => page.evaluate(() => (globalThis as unknown as { dashboard: Shown }).dashboard);
    const loads = () =>
      page.evaluate(() => Number((globalThis as unknown as PageGlobal).document.querySelector('main')!.getAttribute('data-loads') ?? 0));
    /** Runs `action` and waits for the dashboard to finish the step it starts (main[data-loads] counts them). */
    const step = async (action: () => Promise<unknown>) => {
      const before = await loads();
      await action();
      await page.waitForFunction(
        (n) => Number((globalThis as unknown as PageGlobal).document.querySelector('main')!.getAttribute('data-loads') ?? 0) > n,
        {},
        before,
      );
    };
    const enterKey = (value: string) =>
      step(async () => {
        await page.type('#api-key', value);
        await page.click('#key-form button[type=submit]');
      });
    const isHidden = async (selector: string) => (await attribute(selector, 'hidden')) !== null;
    const valueOf = (selector: string) =>
      page.evaluate((s) => (globalThis as unknown as PageGlobal).document.querySelector(s)!.value, selector);
    /** The figures of an answer per group (over the range) or per day (over `days`, 0 on a day without usage). */
    const sums = (body: Analytics, by: 'group' | 'date', days: string[] = []) => {
      const out = new Map<string, number[]>(days.map((day) => [day, FIGURES.map(() => 0)]));
      for (const row of body.data) {
        const sum = out.get(row[by]!) ?? FIGURES.map(() => 0);
        FIGURES.forEach((f, i) => (sum[i]! += row[f]));
        out.set(row[by]!, sum);
      }
      return out;
    };
    const tableOf = async (selector: string) => new Map((await rows(page, selector)).map(([head, ...cells]) => [head!, cells.map(number)]));

    before(async () => {
      // The app's clock stands still (moved on only by Retry-After, as a client waits: test/support/app.ts),
      // so the full window below stays full until the page has been refused by it.
      app.setNow(new Date());
      downloads = await tempDir('downloads');
      let accountId: string;
      ({ accountId, key, keyId } = await app.account({ plan: 'free' }));
      const other = await issueKey(app.store, accountId);
      otherKeyId = other.key_id;
      keys.push(key, other.key);
      // The scripted usage: lists and a search, counts with a second key, a missing job (404), then counts
      // until the request window is full (the free plan takes 30 a minute).
      for (const path of ['/v1/jobs?limit=5', '/v1/jobs?limit=3&country=US', '/v1/jobs?title=engineer&limit=4'])
        expect((await call(path)).status, path).to.equal(200);
      const search = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ limit: 2 }) };
      expect((await call('/v1/jobs/search', search)).status).to.equal(200);
      for (let i = 0; i < 2; i++) expect((await call('/v1/jobs/count', {}, other.key)).status).to.equal(200);
      expect((await call(MISSING_JOB)).status).to.equal(404);
      let status = 200;
      for (let i = 0; i < 100 && status !== 429; i++) status = (await call('/v1/jobs/count')).status;
      expect(status).to.equal(429);
      refusals++;
      await settled();
    });
    after(async () => {
      app.setNow(undefined);
      await rm(downloads, { recursive: true, force: true });
    });

    it('loads without a key and asks for one; a wrong key gets the API message, no figures, and is forgotten', async () => {
      await open('/dashboard');
      expect(await attribute('#api-key', 'type')).to.equal('password');
      await enterKey(keys[0]!);
      expect(await text('#message')).to.match(/^This API key is not valid \(invalid_api_key\): \S/);
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).sessionStorage.length)).to.equal(0);
      expect(await isHidden('#month')).to.equal(true);
      expect(await isHidden('#key-form')).to.equal(false);
    });

    it('says how long to wait when the request window is full (429 with Retry-After)', async () => {
      await enterKey(key);
      expect(await text('#message')).to.match(/^Too many requests \(rate_limited\): .+ Try again in \d+ s \(Retry-After\)\.$/);
      refusals++;
      // The window turns: the app's clock moves on by Retry-After (test/support/client.ts), as a client waits.
      expect((await app.api.get('/v1/jobs/count', { key })).status).to.equal(200);
      refusals++;
      await settled();
    });

    it("shows this month's figures and every day of the month (to today), equal to GET /v1/usage/analytics", async () => {
      await step(() => page.click('#refresh'));
      expect(await text('#message')).to.equal('');
      expect([await valueOf('#start'), await valueOf('#end')]).to.deep.equal([monthStart, today]);
      await settled();
      const api = await analytics(`start=${monthStart}&end=${today}&group_by=route_class`);
      // The page read its analytics before its request list and before this read: the API counts both
      // (usage class), and the page's own analytics call counted itself. Every other figure is the same.
      const own = 2;
      const byClass = sums(api, 'group');
      byClass.get('usage')![0]! -= own;
      expect(await tableOf('#groups tbody')).to.deep.equal(byClass);
      const days = [...sums(api, 'date', (await shown()).days)];
      days.find(([day]) => day === today)![1][0]! -= own;
      expect(await tableOf('#daily tbody')).to.deep.equal(new Map(days));
      expect((await tableOf('#daily tfoot')).get('Total')).to.deep.equal(FIGURES.map((f, i) => api.totals[f] - (i === 0 ? own : 0)));
      expect(api.totals.errors, 'the missing job').to.equal(1);
      expect(api.totals.refused, 'every 429 the account met').to.equal(refusals);
      // The month as GET /v1/account answered it: the first of the page's three calls, it counted itself but
      // not the three since (the page's analytics read and request list, and this read).
      expect(await text('#requests-figure')).to.match(new RegExp(`^${api.totals.requests - 3} of 250 this month; `));
      expect(await text('#records-figure')).to.match(new RegExp(`^${api.totals.records} of 1,000; resets `));
      expect(await text('#overage-figure')).to.equal('off ($0.00 used)');
      await screenshot(page, 'dashboard', DESKTOP);
    });

    it('lists the latest requests with their settlement, as GET /v1/usage/requests does', async () => {
      const latest = await rows(page, '#requests tbody');
      expect(latest).to.have.length(20);
      // A request list leaves out the call that reads it: the page's newest row is its analytics read. The
      // list read here holds two newer: the analytics read of the case before, and the page's list.
      expect(latest[0]!.slice(1, 3)).to.deep.equal(['GET /v1/usage/analytics', 'usage']);
      const api = (await (await call('/v1/usage/requests?limit=22')).json()) as { data: Record<string, string | number | null>[] };
      const expected = api.data
        .slice(2)
        .map((e) => [
          String(e.occurred_at).replace('T', ' ').slice(0, 19),
          `${e.method} ${e.route}`,
          String(e.route_class),
          e.status === null ? 'pending' : String(e.status),
          String(e.records_charged),
          String(e.settlement_status),
        ]);
      expect(latest).to.deep.equal(expected);
    });

    it('draws one point per day of a chosen range, one line per API key, and the same figures in its tables', async () => {
      const start = utcDay(new Date(Date.parse(`${today}T00:00:00Z`) - 9 * 86_400_000));
      await page.evaluate((v) => ((globalThis as unknown as PageGlobal).document.querySelector('#start')!.value = v), start);
      await step(() => page.select('#group-by', 'api_key_id'));
      const { days, charts } = await shown();
      expect(days).to.have.length(10);
      expect([days[0], days[9]]).to.deep.equal([start, today]);
      for (const [name, chart] of Object.entries(charts)) {
        expect(chart.data[0], name).to.have.length(10);
        for (const line of chart.data) expect(line, name).to.have.length(10);
      }
      expect(charts.requests!.series.slice(1).map((s) => s.label)).to.deep.equal([keyId, otherKeyId].sort());
      expect(charts.errors!.series.slice(1).map((s) => s.label)).to.deep.equal(['errors', 'refused (429)']);
      expect([...(await tableOf('#daily tbody')).keys()]).to.deep.equal(days);
      await settled();
      const byKey = sums(await analytics(`start=${start}&end=${today}&group_by=api_key_id`), 'group');
      byKey.get(keyId)![0]! -= 1; // this read
      expect(await tableOf('#groups tbody')).to.deep.equal(byKey);
      // The chart draws the tables' figures: each key's line sums to its row, each day's points to the day's row.
      const lines = charts.requests!.data.slice(1);
      expect(lines.map((line) => line.reduce((a, b) => a + b, 0))).to.deep.equal([keyId, otherKeyId].sort().map((id) => byKey.get(id)![0]));
      const perDay = [...(await tableOf('#daily tbody')).values()].map((figures) => figures[0]);
      expect(days.map((_, i) => lines.reduce((sum, line) => sum + line[i]!, 0))).to.deep.equal(perDay);
    });

    it('downloads the analytics of the range as CSV: the API answer for the same range', async () => {
      const download = await downloadsInto(browser, downloads);
      const saved = download.next();
      await step(() => page.click('#download'));
      const { name, text: csv } = await saved;
      const [start, end] = [await valueOf('#start'), await valueOf('#end')];
      expect(name).to.equal(`usage-analytics-${start}-to-${end}-by-api_key_id.csv`);
      await settled();
      const api = await (
        await call(`/v1/usage/analytics?start=${start}&end=${end}&group_by=api_key_id`, { headers: { accept: 'text/csv' } })
      ).text();
      // This read is one request more of the key, today.
      const expected = csv.replace(new RegExp(`^${today},${keyId},(\\d+),`, 'm'), (_, n: string) => `${today},${keyId},${Number(n) + 1},`);
      expect(api).to.equal(expected);
      expect(csv.split('\n')[0]).to.equal('date,group,requests,records,errors,refused,overage_usd');
    });

    it('reads on a 375-pixel phone: nothing is wider than the screen', async () => {
      await page.setViewport({ width: PHONE, height: 800 });
      await page.reload({ waitUntil: 'load' });
      await page.waitForFunction(
        () => Number((globalThis as unknown as PageGlobal).document.querySelector('main')!.getAttribute('data-loads') ?? 0) > 0,
      );
      expect(await text('#message')).to.equal('');
      const width = await page.evaluate(() => (globalThis as unknown as PageGlobal).document.documentElement.scrollWidth);
      expect(width).to.be.at.most(PHONE);
      await screenshot(page, 'dashboard-phone', PHONE);
      await page.setViewport({ width: DESKTOP, height: 900 });
    });

    it('forgets the key on request; the key went only in Authorization headers, never in a URL or lasting storage', async () => {
      await page.click('#forget');
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).sessionStorage.length)).to.equal(0);
      expect(await isHidden('#key-form')).to.equal(false);
      expect(await isHidden('#days')).to.equal(true);
      const storage = await page.evaluate(() => {
        const w = globalThis as unknown as PageGlobal;
        return { local: w.localStorage.length, cookie: w.document.cookie };
      });
      expect(storage).to.deep.equal({ local: 0, cookie: '' });
      const api = sent.filter((r) => new URL(r.url()).pathname.startsWith('/v1/'));
      expect(api.length).to.be.greaterThan(8);
      for (const request of sent) for (const k of keys) expect(request.url()).not.to.include(k);
      for (const request of api) expect(keys.map((k) => `Bearer ${k}`)).to.include(request.headers().authorization);
    });
  });
});
