import { parseLinks } from './api';
import { captureStatements, pagingWorld, PagingWorld } from './paging';
import { startTestServer, TestServer } from './server';

/**
 * The EXPLAIN checks of list pages (test/paging-explain*.test.ts): each list's page statement,
 * captured as the server runs it, explained by the engine. It must read its page from an index
 * (SQLite: SEARCH, never SCAN of a big table nor a temp B-tree for ORDER BY or GROUP BY, whole or partial; MariaDB: no
 * type=ALL or full index scan of a big table, no filesort, no temporary table). The tables are made big
 * with rows of other parents (copies of the seeded rows) and the statistics refreshed, so the planners
 * choose as they would in production. Methods are bound: a test file may destructure them.
 */
export class ExplainHarness {
  server!: TestServer;
  w!: PagingWorld;

  /** `big`: the tables a file grows; a scan of one of them is a problem (a file may push more). */
  constructor(readonly big: string[]) {}

  start = async (students = 60): Promise<{ server: TestServer; w: PagingWorld }> => {
    this.server = await startTestServer();
    this.w = await pagingWorld(this.server, students);
    return { server: this.server, w: this.w };
  };

  close = async (): Promise<void> => {
    await this.server?.close();
  };

  mysql = (): boolean => this.server.db.kind === 'mysql';

  /**
   * Copies every row of `table` `times` times over, each copy under another parent (`parent` + k·10⁶;
   * several parent columns, e.g. a group's context and category, all move).
   */
  grow = async (table: string, parent: string | string[], times: number): Promise<void> => {
    const ds = this.server.app.ds;
    const parents = typeof parent === 'string' ? [parent] : parent;
    const cols = ds.getMetadata(table).columns.map((c) => c.databaseName).filter((c) => c !== 'id');
    const list = cols.map((c) => ds.driver.escape(c)).join(', ');
    for (let k = 1; k <= times; k++) {
      const select = cols.map((c) => (parents.includes(c) ? `${ds.driver.escape(c)} + ${k * 1_000_000}` : ds.driver.escape(c))).join(', ');
      await ds.query(`INSERT INTO ${ds.driver.escape(table)} (${list}) SELECT ${select} FROM ${ds.driver.escape(table)} WHERE ${ds.driver.escape(parents[0])} < 1000000`);
    }
  };

  /** Refreshes the planners' statistics after growing. */
  analyze = async (): Promise<void> => {
    if (this.mysql()) await this.server.app.ds.query(`ANALYZE TABLE ${this.big.join(', ')}`);
    else await this.server.app.ds.query('ANALYZE');
  };

  /** The names the plans give `tables` in a statement: each table's own name and the aliases it is read under. */
  private aliases(sql: string, tables: readonly string[]): Set<string> {
    const out = new Set<string>(tables);
    for (const m of sql.matchAll(/(?:FROM|JOIN)\s+[`"]?(\w+)[`"]?\s+(?:AS\s+)?[`"]?(\w+)[`"]?/gi)) if (tables.includes(m[1])) out.add(m[2]);
    return out;
  }

  /**
   * The plan's problems: scans of big tables and sorts of whole parent sets. The sort of a union's
   * rows (db/union-pages.ts unionOfReads: each read one LIMITed index range in a derived table `upN`,
   * the union ordered back per read or merged into one page) sorts at most reads × (first + 1) rows
   * and is no problem; a sort inside a read still is. MariaDB names that sort's table `<unionN,…>`;
   * SQLite places it beside the `SCAN upN` of the derived table, where a read's own sort sits under
   * the read (its CO-ROUTINE or MATERIALIZE).
   */
  problems = async (sql: string, params: readonly unknown[]): Promise<string[]> => {
    const out: string[] = [];
    const big = this.aliases(sql, this.big);
    const ds = this.server.app.ds;
    if (this.mysql()) {
      const rows: { table: string | null; type: string | null; Extra: string | null }[] = await ds.query(`EXPLAIN ${sql}`, [...params]);
      for (const r of rows) {
        if (big.has(String(r.table)) && (r.type === 'ALL' || r.type === 'index')) out.push(`full scan of ${r.table} (type=${r.type})`);
        if (/^<union[\d,]+>$/.test(String(r.table))) continue;
        if (/filesort/i.test(r.Extra ?? '')) out.push(`filesort on ${r.table}`);
        // A temporary table (DISTINCT, GROUP BY) holds every row of the parent before the LIMIT applies.
        if (/Using temporary/i.test(r.Extra ?? '')) out.push(`temporary table on ${r.table}`);
      }
    } else {
      const rows: { id: number; parent: number; detail: string }[] = await ds.query(`EXPLAIN QUERY PLAN ${sql}`, [...params]);
      const overUnionReads = new Set(rows.filter((r) => /^SCAN up\d+$/.test(r.detail)).map((r) => r.parent));
      for (const { detail, parent } of rows) {
        const scan = /^SCAN (\w+)/.exec(detail);
        if (scan && big.has(scan[1])) out.push(`scan: ${detail}`);
        if (/USE TEMP B-TREE FOR (.* OF )?(ORDER|GROUP) BY/.test(detail) && !(/ORDER BY/.test(detail) && overUnionReads.has(parent))) out.push(`sort: ${detail}`);
      }
    }
    return out;
  };

  /**
   * Whether a statement reads `table` from an index alone, never its rows: MariaDB a `ref` access with
   * "Using index" itself ("Using index condition" still reads each row); SQLite one SEARCH of it
   * USING COVERING INDEX. Returns the plan's lines for the table when it does not (empty when it does).
   */
  notIndexOnly = async (sql: string, params: readonly unknown[], table: string): Promise<string[]> => {
    const names = this.aliases(sql, [table]);
    const ds = this.server.app.ds;
    if (this.mysql()) {
      const rows: { table: string; type: string; Extra: string | null }[] = await ds.query(`EXPLAIN ${sql}`, [...params]);
      const mine = rows.filter((r) => names.has(r.table));
      const ok = mine.length === 1 && mine[0].type === 'ref' && (mine[0].Extra ?? '').split('; ').includes('Using index');
      return ok ? [] : mine.map((r) => `${r.table}: type=${r.type} ${r.Extra ?? ''}`);
    }
    const rows: { detail: string }[] = await ds.query(`EXPLAIN QUERY PLAN ${sql}`, [...params]);
    const mine = rows.map((r) => r.detail).filter((d) => names.has(/^(?:SEARCH|SCAN) (\w+)/.exec(d)?.[1] ?? ''));
    const ok = mine.length === 1 && /^SEARCH \w+ USING COVERING INDEX/.test(mine[0]);
    return ok ? [] : mine;
  };

  /** The page statements (they end in LIMIT) on `table` that a request ran, each with its plan's problems. */
  explainPages = async (table: string, request: () => Promise<unknown>): Promise<Record<string, string[]>> => {
    const statements = await captureStatements(this.server, request);
    const pages = statements.filter((s) => /\bLIMIT\b/i.test(s.sql) && new RegExp(`\\b${table}\\b`).test(s.sql));
    expect(pages.length).toBeGreaterThan(0);
    const out: Record<string, string[]> = {};
    for (const s of pages) out[s.sql] = await this.problems(s.sql, s.params);
    return out;
  };

  clean = (plans: Record<string, string[]>): void => {
    expect(Object.fromEntries(Object.entries(plans).filter(([, p]) => p.length))).toEqual({});
  };

  /** The first page and the next one (by Link next, a bookmark or page 2) of a REST list, as the teacher reads it. */
  firstAndNext = async (path: string): Promise<(() => Promise<unknown>)[]> => {
    const api = this.w.teacher.api;
    const next = parseLinks((await api.get(path)).headers.get('link')).next.replace(this.server.url, '');
    return [() => api.get(path), () => api.get(next)];
  };
}
