-- Serving a company registry release (spec 4.9): its companies and merged-id redirects, loaded into
-- the server's DuckDB when the release is opened. {p} is the release's table prefix, {dir} its folder.

-- name: companies
-- In the order of the routes: normalised name (lower case, accents folded), then company_id. pos
-- numbers that order, so a cursor is the pos of the last company returned.
CREATE TABLE {p}companies AS
SELECT row_number() OVER (ORDER BY lower(strip_accents(name)), company_id)::INTEGER AS pos,
       company_id, lower(name) AS name_lower, country, status,
       to_json({
         'company_id': company_id, 'name': name, 'country': country, 'status': status, 'domain': domain,
         'industry': industry, 'employee_range': employee_range, 'merged_ids': merged_ids
       })::VARCHAR AS doc
FROM read_parquet({dir} || '/companies.parquet')
ORDER BY pos;

-- name: redirects
CREATE TABLE {p}redirects AS
SELECT from_company_id, to_company_id FROM read_parquet({dir} || '/redirects.parquet');

-- name: page
-- One page of companies after pos $after, with the filters that are set (NULL: not filtered).
SELECT pos, doc FROM {p}companies
WHERE pos > $after
  AND ($name::VARCHAR IS NULL OR contains(name_lower, $name))
  AND ($country::VARCHAR IS NULL OR country = $country)
  AND ($status::VARCHAR IS NULL OR status = $status)
ORDER BY pos
LIMIT $limit;

-- name: one
-- The company with this id, or where a merged id leads (at most one row each).
SELECT 'company' AS kind, doc AS value FROM {p}companies WHERE company_id = $id
UNION ALL
SELECT 'redirect', to_company_id FROM {p}redirects WHERE from_company_id = $id;
