import { parseQueryString, mergeParams } from '../../src/api/rest/params';
import { bool, date, id, ids, int, list, nullableText, num, obj, oneOf, params, parseParams, text } from '../../src/api/rest/input';
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

});

describe('declared params parse once to typed values', () => {
  const value = (schema: Parameters<typeof params>[0]['x'], v: unknown) => {
    const r = parseParams(params({ x: schema.optional() }), v === undefined ? {} : { x: v });
    if (r.errors) throw new Error(r.errors.map((e) => e.message).join('; '));
    return r.values.x;
  };
  const refused = (schema: Parameters<typeof params>[0]['x'], v: unknown) => parseParams(params({ x: schema }), { x: v }).errors?.map((e) => e.attribute);

  it("reads Canvas booleans as value_to_boolean does, and refuses other words", () => {
    for (const t of ['true', 'TRUE', '1', 'on', 'yes', 'y', 't', true, 1]) expect(value(bool(), t)).toBe(true);
    for (const f of ['false', '0', 'off', 'no', 'n', 'f', '', false, 0, null]) expect(value(bool(), f)).toBe(false);
    expect(value(bool(), undefined)).toBeUndefined();
    expect(refused(bool(), 'abc')).toEqual(['x']);
  });

  it('reads include[] from arrays, single strings, comma lists and indexed hashes', () => {
    expect(value(list(), ['a', 'b'])).toEqual(['a', 'b']);
    expect(value(list(), 'a')).toEqual(['a']);
    expect(value(list(), 'a, b,')).toEqual(['a', 'b']);
    expect(value(list(), { 0: 'a', 1: 'b' })).toEqual(['a', 'b']);
    expect(value(list(), null)).toEqual([]);
    expect(value(list(), '')).toEqual([]);
    expect(value(list(oneOf(['x', 'y'])), 'x,y')).toEqual(['x', 'y']);
    expect(value(list(), undefined)).toBeUndefined();
  });

  it('drops blank entries of an id list, so `x[]=` empties it', () => {
    expect(value(ids(), ['', '2', 3])).toEqual(['2', '3']);
    expect(value(ids(), '')).toEqual([]);
    expect(value(ids(), [null])).toEqual([]);
    expect(refused(ids(), ['a'])).toEqual(['x[]']);
  });

  it('hands ids as strings, numbers as numbers, and clears blanks of nullable values with null', () => {
    expect(value(id(), 12)).toBe('12');
    expect(value(id({ prefixes: ['sis_user_id'] }), 'sis_user_id:a')).toBe('sis_user_id:a');
    expect(value(id({ nullable: true }), '')).toBeNull();
    expect(value(int(), '-4')).toBe(-4);
    expect(value(int({ nullable: true }), '')).toBeNull();
    expect(value(num(), ' 2.5 ')).toBe(2.5);
    expect(value(text(), 7)).toBe('7');
    expect(value(nullableText(), null)).toBeNull();
    expect(value(date(), ' 2024-03-01 ')).toBe('2024-03-01');
    expect(value(date(), '')).toBeNull();
    expect(value(oneOf(['a', 'b'], { nullable: true }), '')).toBeNull();
    expect(value(obj({ n: int().optional(), b: bool().optional() }), { n: '3', b: 'yes' })).toEqual({ n: 3, b: true });
  });

  it('hands the row only the declared keys', () => {
    expect(parseParams(params({ a: text().optional() }), { a: 'x', other: 'y' }).values).toEqual({ a: 'x' });
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
