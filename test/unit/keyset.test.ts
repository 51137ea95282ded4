import { afterKey, cursorForKey, deepPage, fromTheEnd, keyFromCursor, keyWindow, pageTailSql, reverseOrder, SortKey } from '../../src/common/keyset';
import { readDate } from '../../src/common/sql-dates';
import { cursorForOffset } from '../../src/common/relay';

const ASC: SortKey[] = [{ expr: 'a', dir: 'ASC' }, { expr: 'id', dir: 'ASC' }];

describe('afterKey', () => {
  it('bounds the first column so the engines can seek, then breaks ties by the next', () => {
    expect(afterKey(ASC, ['x', 5])).toEqual({ sql: '(a >= ? AND (a > ? OR (a = ? AND id > ?)))', params: ['x', 'x', 'x', 5] });
  });

  it('a descending non-null first column seeks with <=; a nullable one also reaches the NULLs after it', () => {
    expect(afterKey([{ expr: 'd', dir: 'DESC' }, { expr: 'id', dir: 'DESC' }], [3, 9]).sql).toBe('(d <= ? AND (d < ? OR (d = ? AND id < ?)))');
    expect(afterKey([{ expr: 'd', dir: 'DESC', nullable: true }, { expr: 'id', dir: 'DESC' }], [3, 9])).toEqual({
      sql: '((d < ? OR d IS NULL) OR (d = ? AND id < ?))',
      params: [3, 3, 9],
    });
  });

  it('a NULL key: after it come the non-null values (ascending) or only its ties (descending)', () => {
    expect(afterKey(ASC, [null, 5])).toEqual({ sql: '(a IS NOT NULL OR (a IS NULL AND id > ?))', params: [5] });
    expect(afterKey([{ expr: 'd', dir: 'DESC' }, { expr: 'id', dir: 'ASC' }], [null, 5])).toEqual({ sql: '((d IS NULL AND id > ?))', params: [5] });
  });
});

describe('cursors', () => {
  it('round-trips a key and refuses another arity or a foreign cursor', () => {
    const c = cursorForKey(['Same, Sam', 12]);
    expect(keyFromCursor(c, 2)).toEqual(['Same, Sam', 12]);
    expect(keyFromCursor(c, 3)).toBeNull();
    expect(keyFromCursor('not a cursor', 2)).toBeNull();
  });

  it('honours an offset cursor of old as an offset', () => {
    expect(keyWindow({ first: 5, after: cursorForOffset(9) }, 2)).toEqual({ after: null, limit: 5, offset: 10 });
  });
});

describe('readDate', () => {
  // What readDate answered before SQLite's text got its digit-by-digit path.
  const parsed = (v: string) => new Date(`${v.replace(' ', 'T')}${/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? '' : 'Z'}`).getTime();

  it("reads SQLite's datetime text as Date's parser does, out-of-range fields and other text included", () => {
    const texts = [
      '2024-02-03 04:05:06',
      '2024-02-03 04:05:06.789',
      '1999-12-31 23:59:59.999',
      '2024-02-31 00:00:00',
      '0050-01-01 00:00:00',
      '2024-13-01 00:00:00',
      '2024-01-01 24:00:00',
      '2024-01-01 23:60:00',
      '2024-0a-01 00:00:00',
      '2024-01-01T00:00:00Z',
      '2024-01-01 10:00:00+02:00',
    ];
    for (const t of texts) expect([t, readDate(t).getTime()]).toEqual([t, parsed(t)]);
    for (let i = 0; i < 500; i++) {
      const text = new Date(Date.UTC(1970, 0, 1) + i * 7_919_993_017).toISOString().replace('T', ' ').replace('Z', '');
      expect(readDate(text).getTime()).toBe(parsed(text));
    }
  });

  it('passes a Date through', () => {
    const d = new Date();
    expect(readDate(d)).toBe(d);
  });
});

describe('fromTheEnd', () => {
  // The rows a forward `LIMIT limit + 1 OFFSET offset` reads, as positions in a list of `total`.
  const forward = (w: { limit: number; offset: number }, total: number) => Array.from({ length: total }, (_, i) => i).slice(w.offset, w.offset + w.limit + 1);
  // The same read from the end, put back in order.
  const backward = (r: { limit: number; offset: number }, total: number) =>
    Array.from({ length: total }, (_, i) => total - 1 - i)
      .slice(r.offset, r.offset + r.limit)
      .reverse();

  it('covers the rows the forward read covers, the next-page probe included', () => {
    for (const total of [201, 450, 461, 500, 4000])
      for (const offset of [200, 250, 300, 400, 449, 450, 3950, 3999])
        for (const limit of [1, 10, 50, 100]) {
          const r = fromTheEnd({ limit, offset }, total);
          if (offset >= total) expect(r).toBe('empty');
          else if (total - offset >= offset) expect(r).toBeNull();
          else {
            expect(r).not.toBeNull();
            expect(backward(r as { limit: number; offset: number }, total)).toEqual(forward({ limit, offset }, total));
          }
        }
  });

  it('reverses every direction of an order', () => {
    const sort: SortKey[] = [
      { expr: 'a', dir: 'ASC', nullable: true },
      { expr: 'b', dir: 'DESC' },
      { expr: 'id', dir: 'ASC' },
    ];
    expect(reverseOrder(sort)).toEqual([
      { expr: 'a', dir: 'DESC', nullable: true },
      { expr: 'b', dir: 'ASC' },
      { expr: 'id', dir: 'DESC' },
    ]);
  });
});

describe('deepPage', () => {
  const order: SortKey[] = [{ expr: 'a', dir: 'ASC' }, { expr: 'id', dir: 'ASC' }];

  it('counts only numbered pages at least 200 rows deep, and reads those past the middle from the end', async () => {
    let counts = 0;
    const count = async () => (counts++, 450);
    expect(await deepPage({ after: null, limit: 50, offset: 150 }, order, count)).toBeNull();
    expect(await deepPage({ after: ['x', 1], limit: 50, offset: 0 }, order, count)).toBeNull();
    expect(await deepPage({ after: null, limit: 0, offset: 400 }, order, count)).toBeNull();
    expect(counts).toBe(0);
    expect(await deepPage({ after: null, limit: 50, offset: 200 }, order, count)).toBeNull();
    expect(await deepPage({ after: null, limit: 50, offset: 400 }, order, count)).toEqual({ order: reverseOrder(order), limit: 50, offset: 0 });
    expect(await deepPage({ after: null, limit: 50, offset: 450 }, order, count)).toBe('empty');
    expect(counts).toBe(3);
  });
});

describe('pageTailSql', () => {
  it('ends a forward page in the order with LIMIT first + 1 and its OFFSET, a page from the end in the reversed order', () => {
    expect(pageTailSql('a ASC, id ASC', { limit: 50, offset: 0 }, null)).toBe(' ORDER BY a ASC, id ASC LIMIT 51');
    expect(pageTailSql('a ASC, id ASC', { limit: 50, offset: 100 }, null)).toBe(' ORDER BY a ASC, id ASC LIMIT 51 OFFSET 100');
    expect(pageTailSql('a ASC, id ASC', { limit: 50, offset: 400 }, { order: reverseOrder(ASC), limit: 51, offset: 9 })).toBe(' ORDER BY a DESC, id DESC LIMIT 51 OFFSET 9');
  });
});
