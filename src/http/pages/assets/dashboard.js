// The usage dashboard's script (/dashboard): asks for an API key, keeps it in this tab's session storage
// and sends it only as a bearer header (never in a URL), then reads where the account stands
// (GET /v1/account), its days (GET /v1/usage/analytics) and its latest requests (GET /v1/usage/requests).
// Each call is a request of the account: a refresh makes three, a new range or split one, and nothing polls.

const KEY = 'jps.dashboard.key';
const DAY_MS = 86_400_000;
const FIELDS = ['requests', 'records', 'errors', 'refused', 'overage_usd'];
const COLORS = ['#2f6fde', '#d9480f', '#2b8a3e', '#ae3ec9', '#e8590c', '#0b7285', '#c2255c', '#5c940d', '#495057', '#862e9c'];
const LEADS = {
  invalid_api_key: 'This API key is not valid',
  missing_api_key: 'No API key was sent',
  rate_limited: 'Too many requests',
  data_limit_exceeded: 'The allowance is used up',
  invalid_request: 'The API did not take this request',
};

const $ = (id) => document.getElementById(id);
const main = document.querySelector('main');
/** What the page shows, for a reader of the page's state (the browser tests): the charts and their days. */
const shown = { charts: {}, days: [], loads: 0 };
window.dashboard = shown;

/** An answer of the API that is not a success, from its error envelope ({"error": {code, message}}). */
class ApiError extends Error {
  constructor(status, error, retryAfter) {
    super(error.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error.code ?? `http_${status}`;
    this.retryAfter = retryAfter;
  }
}

/** Calls the API with the tab's key as a bearer header; fails with the answer's error envelope. */
async function api(path, accept = 'application/json') {
  const key = sessionStorage.getItem(KEY);
  const res = await fetch(path, { headers: { Authorization: `Bearer ${key}`, Accept: accept }, cache: 'no-store' });
  if (res.ok) return res;
  const body = await res.json().catch(() => ({}));
  throw new ApiError(res.status, body.error ?? {}, res.headers.get('Retry-After'));
}

/** What went wrong, in a sentence: the API's code and message, and how long to wait after a 429. */
function explain(error) {
  if (!(error instanceof ApiError)) return `The API could not be reached: ${error.message}`;
  const text = `${LEADS[error.code] ?? `The API answered ${error.status}`} (${error.code}): ${error.message}`;
  return error.status === 429 && error.retryAfter !== null ? `${text} Try again in ${error.retryAfter} s (Retry-After).` : text;
}

function say(text) {
  $('message').textContent = text;
  $('message').hidden = text === '';
}

const count = (n) => n.toLocaleString('en-US');
const usd = (n) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
const dayOf = (iso) => iso.slice(0, 10);
const today = () => dayOf(new Date().toISOString());

/** Every UTC day from `start` to `end`, both included. */
function daysOf(start, end) {
  const days = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += DAY_MS)
    days.push(dayOf(new Date(t).toISOString()));
  return days;
}

/** Shows the key form, or the line that says a key is in use (with the sections that need one). */
function showKey(inUse) {
  $('key-form').hidden = inUse;
  $('key-state').hidden = !inUse;
  if (!inUse) for (const id of ['month', 'days', 'latest']) $(id).hidden = true;
}

function forget() {
  sessionStorage.removeItem(KEY);
  for (const chart of Object.values(shown.charts)) chart.destroy();
  shown.charts = {};
  showKey(false);
}

let busy = false;

/**
 * Runs a step of the page, one at a time (a click while one runs is dropped, not queued: no burst of calls),
 * its failure said in the message line; a key the API does not take is forgotten.
 */
async function step(work) {
  if (busy) return;
  busy = true;
  main.setAttribute('aria-busy', 'true');
  say('');
  try {
    await work();
  } catch (error) {
    say(explain(error));
    if (error instanceof ApiError && error.status === 401) forget();
  } finally {
    busy = false;
    main.setAttribute('aria-busy', 'false');
    main.dataset.loads = String(++shown.loads);
  }
}

/** The three calls of a refresh, one after another: each figure then counts the calls before it. */
const refresh = () =>
  step(async () => {
    showMonth(await (await api('/v1/account')).json());
    await loadDays();
    showLatest(await (await api('/v1/usage/requests?limit=20')).json());
  });

function rangeQuery() {
  return new URLSearchParams({ start: $('start').value, end: $('end').value, group_by: $('group-by').value }).toString();
}

async function loadDays() {
  const analytics = await (await api(`/v1/usage/analytics?${rangeQuery()}`)).json();
  showDays(analytics, daysOf($('start').value, $('end').value));
}

/** One figure against its allowance: the text and, when there is an allowance, a meter. */
function figure(name, text, used, allowance) {
  $(`${name}-figure`).textContent = text;
  const meter = $(`${name}-meter`);
  meter.hidden = allowance === null || allowance === undefined;
  if (!meter.hidden) Object.assign(meter, { max: Math.max(allowance, 1), high: allowance * 0.8, value: Math.min(used, allowance) });
}

/** This month against the plan (GET /v1/account). */
function showMonth(account) {
  const { requests: r, records, overage: o, window: w } = account;
  const byRecords = account.billing_model === 'records';
  figure(
    'requests',
    byRecords
      ? `${count(r.used)} of ${count(r.allowance)} this month; ${count(r.remaining)} left with carry-over`
      : `${count(r.used)} of ${count(r.allowance)} free request units today (this key); ${count(r.remaining)} left`,
    r.used,
    r.allowance,
  );
  $('records-box').hidden = !records;
  if (records) {
    const reserved = records.reserved > 0 ? ` (${count(records.reserved)} reserved for exports)` : '';
    figure(
      'records',
      `${count(records.used)} of ${count(records.limit)}${reserved}; resets ${dayOf(records.resets_at)}`,
      records.used,
      records.limit,
    );
  }
  const limit = o.monthlyLimitUsd === null ? 'no limit' : `a limit of ${usd(o.monthlyLimitUsd)}`;
  figure('overage', o.enabled ? `${usd(o.usedUsd)} used, ${limit}` : `off (${usd(o.usedUsd)} used)`, o.usedUsd, o.monthlyLimitUsd);
  $('window-figure').textContent = `${count(w.used)} of ${count(w.limit)} requests this minute`;
  const prepaid = account.prepaid_usd === undefined ? '' : ` Prepaid balance ${usd(account.prepaid_usd)}.`;
  $('plan').textContent = `Plan ${account.plan}, ${account.billing_model} model; account ${account.account_id}.${prepaid}`;
  $('month').hidden = false;
}

/** The analytics rows on one column per day of the range (0 on a day without usage): per group, and per day. */
function columnsOf(analytics, days) {
  const index = new Map(days.map((day, i) => [day, i]));
  const zeros = () => days.map(() => 0);
  const groups = new Map();
  const perDay = Object.fromEntries(FIELDS.map((field) => [field, zeros()]));
  for (const row of analytics.data) {
    const i = index.get(row.date);
    if (i === undefined) continue;
    const name = row.group ?? 'all';
    if (!groups.has(name)) groups.set(name, Object.fromEntries(FIELDS.map((field) => [field, zeros()])));
    for (const field of FIELDS) {
      groups.get(name)[field][i] += row[field];
      perDay[field][i] += row[field];
    }
  }
  return { groups: new Map([...groups].sort(([a], [b]) => a.localeCompare(b))), perDay };
}

/** A uPlot chart of one line per series over the days, on UTC dates, as wide as its box. */
function chart(id, days, series) {
  const box = $(id);
  box.replaceChildren();
  const lines = series.length > 0 ? series : [{ label: 'no usage', values: days.map(() => 0) }];
  const options = {
    width: box.clientWidth,
    height: 200,
    tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
    axes: [{}, { size: 48, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6] }],
    series: [
      { label: 'Date', value: '{YYYY}-{MM}-{DD}' },
      ...lines.map((line, i) => ({ label: line.label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: true } })),
    ],
  };
  const x = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  return new window.uPlot(options, [x, ...lines.map((line) => line.values)], box);
}

/** The range's charts and tables (GET /v1/usage/analytics). */
function showDays(analytics, days) {
  const { groups, perDay } = columnsOf(analytics, days);
  for (const old of Object.values(shown.charts)) old.destroy();
  $('days').hidden = false;
  const of = (field) => [...groups].map(([label, columns]) => ({ label, values: columns[field] }));
  shown.days = days;
  shown.charts = {
    requests: chart('requests-chart', days, of('requests')),
    records: chart('records-chart', days, of('records')),
    errors: chart('errors-chart', days, [
      { label: 'errors', values: perDay.errors },
      { label: 'refused (429)', values: perDay.refused },
    ]),
  };
  fillDaily(days, perDay, analytics.totals);
  fillGroups(groups);
}

/** A table row: a header cell, then the figures. */
function row(head, figures) {
  const tr = document.createElement('tr');
  const th = document.createElement('th');
  th.scope = 'row';
  th.textContent = head;
  tr.append(th, ...figures.map((text) => Object.assign(document.createElement('td'), { textContent: text })));
  return tr;
}

const figuresOf = (values) => FIELDS.map((field) => (field === 'overage_usd' ? usd(values[field]) : count(values[field])));

function fillDaily(days, perDay, totals) {
  const table = $('daily');
  table.tBodies[0].replaceChildren(...days.map((day, i) => row(day, figuresOf(Object.fromEntries(FIELDS.map((f) => [f, perDay[f][i]]))))));
  table.tFoot.replaceChildren(row('Total', figuresOf(totals)));
}

function fillGroups(groups) {
  const select = $('group-by');
  $('group-name').textContent = select.options[select.selectedIndex].text;
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  const rows = [...groups].map(([name, columns]) => row(name, figuresOf(Object.fromEntries(FIELDS.map((f) => [f, sum(columns[f])])))));
  $('groups').tBodies[0].replaceChildren(...rows);
}

/** The latest requests of the ledger, with how each was settled (GET /v1/usage/requests). */
function showLatest(page) {
  const rows = page.data.map((event) =>
    row(event.occurred_at.replace('T', ' ').slice(0, 19), [
      `${event.method} ${event.route}`,
      event.route_class,
      event.status === null ? 'pending' : String(event.status),
      count(event.records_charged),
      event.settlement_status,
    ]),
  );
  $('requests').tBodies[0].replaceChildren(...rows);
  $('latest').hidden = false;
}

/** The range's analytics as CSV, saved as a file: fetched with the bearer header, which a plain link cannot carry. */
const download = () =>
  step(async () => {
    const res = await api(`/v1/usage/analytics?${rangeQuery()}`, 'text/csv');
    const name = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'usage-analytics.csv';
    const url = URL.createObjectURL(await res.blob());
    const link = Object.assign(document.createElement('a'), { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The download has taken the file by then; the object URL only holds memory.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  });

function resize() {
  for (const [name, chart] of Object.entries(shown.charts)) chart.setSize({ width: $(`${name}-chart`).clientWidth, height: 200 });
}

function start() {
  $('start').value = `${today().slice(0, 8)}01`;
  $('end').value = today();
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY, $('api-key').value.trim());
    $('api-key').value = '';
    showKey(true);
    void refresh();
  });
  $('range').addEventListener('submit', (event) => {
    event.preventDefault();
    void step(loadDays);
  });
  $('group-by').addEventListener('change', () => void step(loadDays));
  $('refresh').addEventListener('click', () => void refresh());
  $('forget').addEventListener('click', () => {
    forget();
    say('');
  });
  $('download').addEventListener('click', () => void download());
  let pending = false;
  window.addEventListener('resize', () => {
    if (!pending) requestAnimationFrame(() => ((pending = false), resize()));
    pending = true;
  });
  const inUse = sessionStorage.getItem(KEY) !== null;
  showKey(inUse);
  if (inUse) void refresh();
}

start();
