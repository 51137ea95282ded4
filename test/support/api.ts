/** A small HTTP client for tests: REST calls with form or JSON bodies, and GraphQL. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

type Body = Record<string, unknown> | [string, string][] | string | undefined;

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  with(headers: Record<string, string>): Api {
    return new Api(this.baseUrl, this.token, { ...this.extraHeaders, ...headers });
  }

  async request<T = any>(method: string, path: string, body?: Body, opts: { json?: boolean } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.extraHeaders };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      if (opts.json) {
        headers['Content-Type'] = 'application/json';
        payload = JSON.stringify(body);
      } else {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        payload = typeof body === 'string' ? body : formEncode(body);
      }
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body?: Body, opts?: { json?: boolean }) {
    return this.request<T>('POST', path, body ?? {}, opts);
  }
  put<T = any>(path: string, body?: Body, opts?: { json?: boolean }) {
    return this.request<T>('PUT', path, body ?? {}, opts);
  }
  delete<T = any>(path: string, body?: Body) {
    return this.request<T>('DELETE', path, body);
  }

  async graphql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<{ status: number; data: T; errors?: any[] }> {
    const res = await this.request('POST', '/graphql', { query, variables }, { json: true });
    return { status: res.status, data: res.body?.data, errors: res.body?.errors };
  }
}

/** Form-encodes nested objects the way Canvas clients do: a[b]=1, x[]=1, q[][k]=v. */
export function formEncode(body: Record<string, unknown> | [string, string][]): string {
  if (Array.isArray(body)) return new URLSearchParams(body).toString();
  const pairs: [string, string][] = [];
  const walk = (prefix: string, v: unknown) => {
    if (v === undefined) return;
    if (Array.isArray(v)) {
      for (const x of v) {
        if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) walk(`${prefix}[][${k}]`, y);
        else walk(`${prefix}[]`, x);
      }
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}[${k}]` : k, x);
    } else pairs.push([prefix, v === null ? '' : String(v)]);
  };
  walk('', body);
  return new URLSearchParams(pairs).toString();
}

/** Parses a Link header into rel → URL. */
export function parseLinks(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>;\s*rel="(\w+)"/.exec(part);
    if (m) out[m[2]] = m[1];
  }
  return out;
}
