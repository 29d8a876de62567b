/**
 * DuckDB's own Parquet reader (C++, no code shared with hyparquet, arrow-rs or pyarrow) for the
 * export tests: rows, column types and file metadata as DuckDB sees them.
 */
import { DuckDBInstance } from "@duckdb/node-api";

export type Row = Record<string, unknown>;

const quote = (path: string) => `'${path.replace(/'/g, "''")}'`;

async function query(sql: string): Promise<Row[]> {
  const db = await DuckDBInstance.create(":memory:");
  const con = await db.connect();
  try {
    const reader = await con.runAndReadAll(sql);
    return JSON.parse(JSON.stringify(reader.getRowObjectsJS(), (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))) as Row[];
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** Every row of a Parquet file (BIGINT as number). */
export const duckRows = (path: string) => query(`SELECT * FROM read_parquet(${quote(path)})`);

/** `name: TYPE` per column, in DuckDB's type names. */
export const duckColumns = async (path: string) => (await query(`DESCRIBE SELECT * FROM read_parquet(${quote(path)})`)).map((r) => `${r.column_name as string}: ${r.column_type as string}`);

/** The file's key-value metadata (key -> value, as text). */
export const duckKeyValues = async (path: string) =>
  Object.fromEntries((await query(`SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${quote(path)})`)).map((r) => [r.key as string, r.value as string]));

/** Each schema element's name with its logical and converted types. */
export const duckSchema = (path: string) => query(`SELECT name, type, converted_type, logical_type FROM parquet_schema(${quote(path)})`);
