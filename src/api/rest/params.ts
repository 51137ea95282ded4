/**
 * Canvas (Rack) parameter parsing: form bodies, query strings and multipart fields become one nested
 * tree. `a[b][c]=1` nests, `x[]=1&x[]=2` is an array, and arrays of objects follow Rack: in
 * `q[][id]=1&q[][t]=5&q[][id]=2`, a repeated key starts a new object (Node's `qs` would not).
 */
export type ParamValue = string | ParamTree | ParamValue[] | null | boolean | number;
export interface ParamTree {
  [key: string]: ParamValue;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const newTree = (): ParamTree => Object.create(null) as ParamTree;

function isTree(v: unknown): v is ParamTree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasKey(hash: ParamTree, key: string): boolean {
  if (key.includes('[]')) return false;
  let h: ParamValue = hash;
  for (const part of key.split(/[[\]]+/).filter(Boolean)) {
    if (!isTree(h) || !(part in h)) return false;
    h = h[part];
  }
  return true;
}

function normalize(params: ParamTree, name: string, v: string): ParamTree {
  const m = /^[[\]]*([^[\]]+)\]*/.exec(name);
  const k = m ? m[1] : '';
  const after = m ? name.slice(m[0].length) : '';
  if (!k || FORBIDDEN_KEYS.has(k)) return params;

  if (after === '') {
    params[k] = v;
  } else if (after === '[') {
    params[name] = v;
  } else if (after === '[]') {
    const arr = Array.isArray(params[k]) ? (params[k] as ParamValue[]) : (params[k] = []);
    arr.push(v);
  } else {
    const arrayOfHashes = /^\[\]\[([^[\]]+)\]$/.exec(after) ?? /^\[\](.+)$/.exec(after);
    if (arrayOfHashes) {
      const childKey = arrayOfHashes[1];
      const arr = Array.isArray(params[k]) ? (params[k] as ParamValue[]) : (params[k] = []);
      const last = arr[arr.length - 1];
      if (isTree(last) && !hasKey(last, childKey)) normalize(last, childKey, v);
      else arr.push(normalize(newTree(), childKey, v));
    } else {
      const child = isTree(params[k]) ? (params[k] as ParamTree) : newTree();
      params[k] = normalize(child, after, v);
    }
  }
  return params;
}

/** Builds the tree from ordered key/value pairs (URLSearchParams, multipart fields). */
export function parsePairs(pairs: Iterable<[string, string]>, into: ParamTree = newTree()): ParamTree {
  for (const [name, value] of pairs) normalize(into, name, value);
  return into;
}

export function parseQueryString(qs: string): ParamTree {
  return parsePairs(new URLSearchParams(qs));
}

/** Deep merge: `over` wins, as body params win over query params in Rails. */
export function mergeParams(base: ParamTree, over: unknown): ParamTree {
  if (!isTree(over)) return base;
  const out = newTree();
  Object.assign(out, base);
  for (const [k, v] of Object.entries(over)) {
    if (FORBIDDEN_KEYS.has(k)) continue;
    out[k] = isTree(v) && isTree(out[k]) ? mergeParams(out[k] as ParamTree, v) : (v as ParamValue);
  }
  return out;
}

/**
 * A raw param as a string (numbers from JSON bodies included); undefined when absent or not scalar. Rows
 * read declared params from RestInput.values; this is for values read before or beside the declaration
 * (the router's as_user_id, entries whose refusals name their index).
 */
export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A raw list param: arrays, single strings, or comma-separated lists (declared lists are parsed by list()). */
export function strArray(v: unknown): string[] {
  if (v == null) return [];
  if (Array.isArray(v)) return v.flatMap((x) => (x == null ? [] : [String(x)]));
  if (isTree(v)) return Object.values(v).map((x) => String(x));
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

