import { afterKey, cursorForKey, keyFromCursor, keyWindow, SortKey } from '../../src/common/keyset';
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
