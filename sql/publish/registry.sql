-- The company registry: releases from the delivery, and the tables that link postings to companies.

-- name: release_companies
-- $path: companies.jsonl of a release in the delivery. Merged companies become redirects and the
-- merged_ids of their acquirer (followed to the end of a chain of acquisitions).
CREATE OR REPLACE TABLE release_input AS
SELECT * FROM read_json($path, format = 'newline_delimited', columns = {
  company_id: 'VARCHAR', name: 'VARCHAR', country: 'VARCHAR', status: 'VARCHAR', domain: 'VARCHAR',
  industry: 'VARCHAR', employee_range: 'VARCHAR', merged_into: 'VARCHAR'
});
CREATE OR REPLACE TABLE release_redirects AS
WITH RECURSIVE chain(from_id, to_id, depth) AS (
  SELECT company_id, merged_into, 1 FROM release_input WHERE merged_into IS NOT NULL
  UNION ALL
  SELECT c.from_id, r.merged_into, c.depth + 1 FROM chain c JOIN release_input r ON r.company_id = c.to_id
  WHERE r.merged_into IS NOT NULL AND c.depth < 20
)
SELECT from_id AS from_company_id, arg_max(to_id, depth) AS to_company_id FROM chain GROUP BY from_id;
CREATE OR REPLACE TABLE release_companies AS
SELECT r.company_id, squash(r.name) AS name, upper(r.country) AS country,
       CASE WHEN r.status = 'inactive' THEN 'inactive' ELSE 'active' END AS status,
       lower(r.domain) AS domain, r.industry, r.employee_range,
       coalesce(list_sort(list(m.from_company_id) FILTER (WHERE m.from_company_id IS NOT NULL)), []::VARCHAR[]) AS merged_ids
FROM release_input r
LEFT JOIN release_redirects m ON m.to_company_id = r.company_id
WHERE r.merged_into IS NULL
GROUP BY ALL;

CREATE OR REPLACE TABLE release_aliases AS
SELECT m.to_company_id AS company_id, squash(r.name) AS name, lower(r.domain) AS domain
FROM release_input r JOIN release_redirects m ON m.from_company_id = r.company_id;

-- name: write_release
-- $dir: the release folder being written.
COPY (SELECT * FROM release_companies ORDER BY lower(name), company_id) TO ($dir || '/companies.parquet') (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM release_redirects ORDER BY from_company_id) TO ($dir || '/redirects.parquet') (FORMAT parquet, COMPRESSION zstd);
COPY (SELECT * FROM release_aliases ORDER BY company_id, name) TO ($dir || '/aliases.parquet') (FORMAT parquet, COMPRESSION zstd);

-- name: active_release
-- $dir: the active release folder. What postings are linked against: a company's domain, or its
-- normalised name when exactly one company has it; merged companies lead to their acquirer.
CREATE OR REPLACE TABLE registry_companies AS SELECT * FROM read_parquet($dir || '/companies.parquet');
CREATE OR REPLACE TABLE registry_redirects AS SELECT * FROM read_parquet($dir || '/redirects.parquet');
CREATE OR REPLACE TABLE registry_aliases AS SELECT * FROM read_parquet($dir || '/aliases.parquet');
CREATE OR REPLACE TABLE registry_names AS
SELECT company_id, name, domain FROM registry_companies
UNION ALL SELECT company_id, name, domain FROM registry_aliases;
CREATE OR REPLACE TABLE company_by_domain AS
SELECT domain, min(company_id) AS company_id FROM registry_names WHERE domain IS NOT NULL
GROUP BY domain HAVING count(DISTINCT company_id) = 1;
CREATE OR REPLACE TABLE company_by_name AS
SELECT employer_key(name) AS name_key, min(company_id) AS company_id FROM registry_names
WHERE employer_key(name) IS NOT NULL GROUP BY 1 HAVING count(DISTINCT company_id) = 1;

-- name: no_registry
CREATE OR REPLACE TABLE registry_companies (company_id VARCHAR, name VARCHAR, domain VARCHAR);
CREATE OR REPLACE TABLE registry_aliases (company_id VARCHAR, name VARCHAR, domain VARCHAR);
CREATE OR REPLACE TABLE company_by_domain (domain VARCHAR, company_id VARCHAR);
CREATE OR REPLACE TABLE company_by_name (name_key VARCHAR, company_id VARCHAR);
