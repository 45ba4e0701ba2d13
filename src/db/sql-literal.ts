// Text written into SQL as a literal (DuckDB and PostgreSQL alike): for what a statement cannot take as a
// bound parameter, such as the paths of COPY ... TO and read_parquet([...]) in DuckDB.

/** `text` as a SQL string literal: in single quotes, each quote doubled. */
export const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;
