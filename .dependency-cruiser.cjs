// The layers of src/ (docs/architecture.md), checked by `npm test` (npm run lint:deps): no cycles, and
// no import upward, from a lower layer into one built on it.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules that import each other cannot be read, tested or loaded one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'mcp-not-on-http',
      severity: 'error',
      comment:
        'The MCP tools sit below the HTTP layer that carries them (src/http/mcp.ts is their Streamable HTTP transport): they never import it; what both need lives in src/shared/ and the features.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'features-not-on-faces',
      severity: 'error',
      comment: 'The features (catalog, jobs, feed, companies, exports, metering, search) and the shared layer know nothing of HTTP or MCP.',
      from: { path: '^src/(catalog|jobs|feed|companies|exports|metering|search|storage|db|shared|query)/' },
      to: { path: '^src/(http|mcp|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
