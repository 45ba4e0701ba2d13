// The guides of docs/ written for people and agents who call the API: the reference (/docs) shows them
// as sections, and the MCP search_docs tool indexes them (with the contract's descriptions) and nothing
// else of docs/. The architecture, operations, deployment, catalog, corpus and lifecycle notes and the
// decision records (docs/adr/) are for the people who build and run the service.

/** File names under docs/, in the order the reference shows them. */
export const GUIDES: readonly string[] = [
  'filters.md',
  'data-quality.md',
  'search.md',
  'sync-and-exports.md',
  'usage-and-limits.md',
  'errors.md',
  'companies.md',
  'mcp.md',
];
