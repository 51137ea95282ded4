import { parseQueryString, toBool, mergeParams, strArray } from '../../src/api/rest/params';
import { parseCanvasDate, formatDateTime } from '../../src/common/dates';

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('Rack parameter parsing', () => {
  it('nests brackets and collects arrays', () => {
    expect(plain(parseQueryString('module[name]=X&include[]=items&include[]=content_details'))).toEqual({
      module: { name: 'X' },
      include: ['items', 'content_details'],
    });
  });

  it('starts a new object in an array of objects when a key repeats (Rails, not qs)', () => {
    const p = parseQueryString('q[][user_id]=1&q[][extra_time]=5&q[][user_id]=2');
    expect(plain(p)).toEqual({ q: [{ user_id: '1', extra_time: '5' }, { user_id: '2' }] });
  });

  it('keeps index-keyed hashes as hashes and lets a repeated plain key win last', () => {
    expect(plain(parseQueryString('x[0]=a&x[1]=b&y=1&y=2'))).toEqual({ x: { 0: 'a', 1: 'b' }, y: '2' });
  });

  it('ignores prototype-polluting keys', () => {
    const p = parseQueryString('__proto__[admin]=1&a[constructor][x]=1&ok=1');
    expect(plain(p)).toEqual({ a: {}, ok: '1' });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('merges body over query', () => {
    expect(plain(mergeParams(parseQueryString('a[b]=1&a[c]=2'), { a: { b: 'x' } }))).toEqual({ a: { b: 'x', c: '2' } });
  });

  it("reads Canvas booleans as value_to_boolean does", () => {
    for (const t of ['true', 'TRUE', '1', 'on', 'yes', 'y', 't', true, 2]) expect(toBool(t)).toBe(true);
    for (const f of ['false', '0', 'off', 'no', 'n', 'f', '', 'abc', false, 0, null]) expect(toBool(f)).toBe(false);
    expect(toBool(undefined)).toBeUndefined();
  });

  it('reads include[] from arrays, single strings and comma lists', () => {
    expect(strArray(['a', 'b'])).toEqual(['a', 'b']);
    expect(strArray('a')).toEqual(['a']);
    expect(strArray('a,b')).toEqual(['a', 'b']);
    expect(strArray(undefined)).toEqual([]);
  });
});

describe('Canvas dates', () => {
  it('accepts ISO 8601 with offsets and YYYY-MM-DD, rendering UTC at second precision', () => {
    expect(formatDateTime(parseCanvasDate('2024-03-01T17:05:00Z'))).toBe('2024-03-01T17:05:00Z');
    expect(formatDateTime(parseCanvasDate('2024-03-01T12:05:00-05:00'))).toBe('2024-03-01T17:05:00Z');
    expect(formatDateTime(parseCanvasDate('2024-03-01T17:05:00.123Z'))).toBe('2024-03-01T17:05:00Z');
    expect(formatDateTime(parseCanvasDate('2024-03-01'))).toBe('2024-03-01T00:00:00Z');
  });

  it('rejects garbage and impossible dates', () => {
    for (const bad of ['someday', '2024-13-01', '2024-02-31', '2024-03-01T25:00:00Z', '']) expect(parseCanvasDate(bad)).toBeNull();
  });
});
