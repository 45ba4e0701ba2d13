// The pages' HTML: plain documents with their own small stylesheet and script, readable on a phone.

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function document(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

const NAV = `<nav><a href="/">Home</a> <a href="/docs">API reference</a> <a href="/dashboard">Usage dashboard</a></nav>`;

export function landingPage(base: string, catalog: { watermark: string | null; jobs: number | null }): string {
  const state =
    catalog.watermark === null
      ? '<p id="catalog">No catalog is published yet.</p>'
      : `<p id="catalog">Catalog of <strong id="job-count">${catalog.jobs?.toLocaleString('en-US') ?? '?'}</strong> jobs, ` +
        `collected up to <strong id="watermark">${escape(catalog.watermark)}</strong>.</p>`;
  return document(
    'Job Postings Data Service',
    '<link rel="stylesheet" href="/assets/pages.css">',
    `${NAV}
<main>
<h1>Job Postings Data Service</h1>
<p>Job postings collected from employers' own career sites and applicant tracking systems, with duplicate
postings of one opening merged into one job: list and search them, follow their changes, export them in bulk,
over a REST API (<code>/v1</code>) or as MCP tools for AI agents.</p>
${state}
<ul class="links">
<li><a href="/docs">API reference</a>: every route, with samples in curl, JavaScript and Python, and the guides.</li>
<li><a href="/dashboard">Usage dashboard</a>: your account's requests, records and overage this month, day by day, with your key.</li>
<li>The contract: <a href="/openapi.yaml">openapi.yaml</a> · <a href="/openapi.json">openapi.json</a></li>
<li><a href="/docs#tag/Guide:-MCP:-the-API-for-AI-agents">MCP setup</a>: connect an agent to <code>/mcp</code> with your key.</li>
</ul>
<p>Every call takes an API key as a bearer token:</p>
<pre><code>curl -H "Authorization: Bearer $JPS_API_KEY" '${escape(base)}/v1/jobs?limit=5'</code></pre>
</main>`,
  );
}

export function docsPage(): string {
  return document(
    'API reference · Job Postings Data Service',
    '<style>body { margin: 0; }</style>',
    `<redoc spec-url="/docs/openapi.json" native-scrollbars="true"></redoc>
<script src="/assets/redoc.standalone.js"></script>`,
  );
}

/** The key form, and the line that says a key is in use (the key itself is never shown). */
const KEY_FORM = `<form id="key-form" class="key">
<label for="api-key">API key</label>
<input id="api-key" type="password" autocomplete="off" spellcheck="false" required placeholder="jps_live_…">
<button type="submit">Show usage</button>
<p class="hint">The key stays in this tab (session storage) and is sent only as an <code>Authorization: Bearer</code> header.</p>
</form>
<p id="key-state" class="key" hidden>Using the key of this tab.
<button type="button" id="refresh">Refresh</button> <button type="button" id="forget">Forget key</button></p>
<p id="message" role="alert" hidden></p>`;

/** This month against the plan: filled in from GET /v1/account. */
const MONTH = `<section id="month" hidden>
<h2>This month</h2>
<dl class="figures">
<div><dt>Requests</dt><dd id="requests-figure"></dd><meter id="requests-meter" min="0" value="0"></meter></div>
<div id="records-box"><dt>Records</dt><dd id="records-figure"></dd><meter id="records-meter" min="0" value="0"></meter></div>
<div><dt>Overage</dt><dd id="overage-figure"></dd><meter id="overage-meter" min="0" value="0"></meter></div>
<div><dt>Request window</dt><dd id="window-figure"></dd></div>
</dl>
<p id="plan" class="hint"></p>
</section>`;

/** Days of a range, as charts and tables, from GET /v1/usage/analytics. */
const DAYS = `<section id="days" hidden>
<h2>Day by day</h2>
<form id="range" class="range">
<label>From <input id="start" type="date" required></label>
<label>To <input id="end" type="date" required></label>
<label>Split by <select id="group-by"><option value="route_class">route class</option><option value="api_key_id">API key</option></select></label>
<button type="submit">Show</button>
<button type="button" id="download">Download CSV</button>
</form>
<h3>Requests per day</h3>
<div id="requests-chart" class="chart"></div>
<h3>Records per day</h3>
<div id="records-chart" class="chart"></div>
<h3>Errors and refused calls (429) per day</h3>
<div id="errors-chart" class="chart"></div>
<div class="scroll"><table id="daily">
<caption>Per day, all groups</caption>
<thead><tr><th scope="col">Date (UTC)</th><th scope="col">Requests</th><th scope="col">Records</th><th scope="col">Errors</th><th scope="col">Refused (429)</th><th scope="col">Overage USD</th></tr></thead>
<tbody></tbody><tfoot></tfoot>
</table></div>
<div class="scroll"><table id="groups">
<caption>Per <span id="group-name">route class</span>, the whole range</caption>
<thead><tr><th scope="col">Group</th><th scope="col">Requests</th><th scope="col">Records</th><th scope="col">Errors</th><th scope="col">Refused (429)</th><th scope="col">Overage USD</th></tr></thead>
<tbody></tbody>
</table></div>
</section>`;

/** The latest requests of the ledger, from GET /v1/usage/requests. */
const LATEST = `<section id="latest" hidden>
<h2>Latest requests</h2>
<div class="scroll"><table id="requests">
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Request</th><th scope="col">Class</th><th scope="col">Status</th><th scope="col">Records</th><th scope="col">Settlement</th></tr></thead>
<tbody></tbody>
</table></div>
</section>`;

/** The usage dashboard: no key needed to load it; its script asks for one and reads the API with it. */
export function dashboardPage(): string {
  return document(
    'Usage dashboard · Job Postings Data Service',
    `<link rel="stylesheet" href="/assets/uPlot.min.css">
<link rel="stylesheet" href="/assets/pages.css">
<script src="/assets/uPlot.iife.min.js" defer></script>
<script src="/assets/dashboard.js" type="module"></script>`,
    `${NAV}
<main class="dashboard">
<h1>Usage dashboard</h1>
${KEY_FORM}
${MONTH}
${DAYS}
${LATEST}
</main>`,
  );
}
