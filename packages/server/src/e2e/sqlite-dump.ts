import Database from "better-sqlite3";

/**
 * Every row of every table of a SQLite file, in a stable order, as text: two equal dumps mean
 * the store's content is byte-identical. Read through a read-only connection (WAL: it sees what
 * the gateway committed) that stays open until `close`.
 */
export function openSqliteDump(path: string) {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  return {
    dump(): string {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[];
      const lines: string[] = [];
      for (const { name } of tables) {
        const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[])
          .map((_, index) => String(index + 1))
          .join(", ");
        const rows = db.prepare(`SELECT * FROM "${name}" ORDER BY ${columns}`).raw().all();
        lines.push(`# ${name} (${rows.length} rows)`);
        for (const row of rows as unknown[][]) {
          lines.push(
            JSON.stringify(
              row.map((value) => (Buffer.isBuffer(value) ? value.toString("hex") : value)),
            ),
          );
        }
      }
      return lines.join("\n");
    },
    close(): void {
      db.close();
    },
  };
}
