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

const NAV = `<nav><a href="/">Home</a> <a href="/docs">API reference</a></nav>`;

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
