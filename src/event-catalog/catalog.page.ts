import { createHash } from 'node:crypto';
import type { JsonSchema } from './graphql-payloads';

/**
 * The catalog as a page: plain HTML rendered here from the AsyncAPI document (no script, nothing from
 * another origin), one section per channel and one table of payload fields per message.
 */
const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const CSS = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{font-size:.9em}.desc{white-space:pre-line}
details{margin:.25rem 0 1rem}summary{cursor:pointer;font-weight:600}`;
export const CATALOG_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** `code` spans and **bold** of the document's descriptions, on escaped text. */
const inline = (s: string) => escape(s).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

interface Row {
  path: string;
  type: string;
  required: boolean;
  notes: string;
}

function resolve(doc: JsonSchema, s: JsonSchema): JsonSchema {
  const ref = typeof s?.$ref === 'string' ? s.$ref : null;
  if (!ref?.startsWith('#/')) return s ?? {};
  return ref
    .slice(2)
    .split('/')
    .reduce((o: JsonSchema, k: string) => o?.[k], doc);
}

function typeName(s: JsonSchema): { type: string; nullable: boolean; inner: JsonSchema } {
  if (Array.isArray(s.anyOf)) {
    const others = s.anyOf.filter((a: JsonSchema) => a.type !== 'null');
    const nullable = others.length < s.anyOf.length;
    if (others.length === 1) return { ...typeName({ ...others[0], description: s.description ?? others[0].description }), nullable };
    const kinds = others.map((o: JsonSchema) => o.properties?.type?.const).filter(Boolean);
    const type = others.some((o: JsonSchema) => o.$ref) ? 'one of the webhook documents' : kinds.length === others.length ? `object: ${kinds.join(' | ')}` : 'one of several shapes';
    return { type, nullable, inner: s };
  }
  if (s.const !== undefined) return { type: typeof s.const === 'string' ? 'string' : typeof s.const, nullable: false, inner: s };
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const nullable = types.includes('null');
  const named = types.filter((t: string) => t !== 'null');
  return { type: named.join(' | ') || 'any', nullable, inner: s };
}

function notes(s: JsonSchema): string {
  const out: string[] = [];
  if (s.const !== undefined) out.push(`always <code>${escape(JSON.stringify(s.const))}</code>`);
  if (Array.isArray(s.enum)) out.push(`one of ${s.enum.map((v: unknown) => `<code>${escape(v)}</code>`).join(', ')}`);
  if (s.format) out.push(`format ${escape(s.format)}`);
  if (s.pattern) out.push(`pattern <code>${escape(s.pattern)}</code>`);
  if (s.maxLength !== undefined) out.push(`at most ${escape(s.maxLength)} characters`);
  if (s.description) out.push(inline(s.description));
  return out.join('; ');
}

/** Every field of a payload, depth first, as `a.b[].c` paths. */
function rows(doc: JsonSchema, schema: JsonSchema, path: string, required: boolean, out: Row[], depth = 0): Row[] {
  const s = resolve(doc, schema);
  const t = typeName(s);
  const inner = t.inner;
  if (path) out.push({ path, type: `${t.type}${t.nullable ? ' | null' : ''}`, required, notes: notes(inner) || notes(s) });
  if (depth > 6) return out;
  if (inner.properties) {
    const req = new Set<string>(inner.required ?? []);
    for (const [k, v] of Object.entries(inner.properties as Record<string, JsonSchema>)) rows(doc, v, path ? `${path}.${k}` : k, req.has(k), out, depth + 1);
  }
  const items = Array.isArray(inner.items) ? inner.items[0] : inner.items;
  if (items) rows(doc, items, `${path}[]`, true, out, depth + 1);
  return out;
}

function fieldTable(doc: JsonSchema, schema: JsonSchema): string {
  const body = rows(doc, schema, '', true, [])
    .map((r) => `<tr><td><code>${escape(r.path)}</code></td><td>${escape(r.type)}</td><td>${r.required ? 'yes' : ''}</td><td>${r.notes}</td></tr>`)
    .join('\n');
  return `<table><thead><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const payloadId = (message: JsonSchema) => `payload-${String(message.payload?.$ref ?? '').split('/').pop()}`;

/** A channel's messages: what each is, and a link to its payload's fields (listed once for all channels). */
function messageTable(keys: string[], messages: Record<string, JsonSchema>): string {
  const body = keys
    .map((k) => messages[k])
    .map((m) => `<tr><td>${escape(m.title ?? m.name)}</td><td>${inline(m.summary ?? '')}</td><td><a href="#${escape(payloadId(m))}">${escape(payloadId(m).slice('payload-'.length))}</a></td></tr>`)
    .join('\n');
  return `<table><thead><tr><th>message</th><th>what happened</th><th>payload</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function payloadSection(doc: JsonSchema, key: string, schema: JsonSchema): string {
  return `<section id="payload-${escape(key)}"><h3>${escape(key)}</h3>
${schema.description ? `<p>${inline(schema.description)}</p>` : ''}
<details><summary>Fields</summary>${fieldTable(doc, { $ref: `#/components/schemas/${key}` })}</details>
</section>`;
}

export function catalogHtml(doc: JsonSchema): string {
  const messages: Record<string, JsonSchema> = doc.components?.messages ?? {};
  const channels = Object.entries(doc.channels as Record<string, JsonSchema>);
  const toc = channels.map(([k, c]) => `<li><a href="#channel-${escape(k)}">${escape(c.title ?? k)}</a></li>`).join('\n');
  const sections = channels
    .map(([k, c]) => {
      const keys = Object.values(c.messages as Record<string, JsonSchema>).map((m) => String(m.$ref).split('/').pop()!);
      const headers = keys.length ? messages[keys[0]]?.headers : null;
      return `<section id="channel-${escape(k)}"><h2>${escape(c.title ?? k)}</h2>
<p>Address <code>${escape(c.address)}</code></p>
<div class="desc">${inline(c.description ?? '')}</div>
${headers ? `<h3>${k === 'webhookSqs' ? 'Message attributes' : 'Headers'}</h3>${fieldTable(doc, headers)}` : ''}
<h3>Messages</h3>
${messageTable(keys, messages)}
</section>`;
    })
    .join('\n');
  const payloads = [...new Set(Object.values(messages).map((m) => payloadId(m).slice('payload-'.length)))]
    .map((k) => payloadSection(doc, k, doc.components.schemas[k] ?? {}))
    .join('\n');
  const title = `${doc.info.title} ${doc.info.version}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${escape(doc.info.title)}</h1>
<p>Version ${escape(doc.info.version)} · AsyncAPI ${escape(doc.asyncapi)} · <a href="/api/asyncapi.json">the document (JSON)</a> · <a href="/">home</a></p>
<div class="desc">${inline(doc.info.description ?? '')}</div>
<h2>Channels</h2>
<ul>
${toc}
</ul>
${sections}
<h2 id="payloads">Payloads</h2>
${payloads}
</body>
</html>
`;
}
