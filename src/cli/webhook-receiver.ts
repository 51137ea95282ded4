import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRemoteJWKSet, JWTPayload, jwtVerify } from 'jose';
import { bodyDigest, SIGNATURE_HEADER } from '../webhooks/signing-keys';
import { DEMO_RECEIVER, DEMO_WEBHOOK_URL } from '../webhooks/webhook.demo';
import { CliError, CliOutput, println } from './common';

/**
 * `webhook-receiver`: a small HTTPS endpoint for trying webhook delivery locally (the demo's
 * subscription points at its default address). It answers every POST with 200 and prints one line
 * per message: event, subscription, message id, attempt and whether the X-Webhook-Signature JWT
 * verifies against the service's JWKS (issuer, audience = this URL, body_sha256, and the
 * subscription and message id in the headers). A development tool: its certificate is made with the
 * `selfsigned` dev dependency, loaded only when this command runs.
 */

export interface ReceiverCertificate {
  dir: string;
  keyFile: string;
  certFile: string;
  /** The PEM to trust (WEBHOOK_CA_FILE): the self-signed certificate is its own CA. */
  caFile: string;
  key: string;
  cert: string;
  /** True when this call generated it, false when a kept one was reused. */
  generated: boolean;
  validTo: Date;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const VALID_DAYS = 365;
/** A kept certificate closer than this to its end is replaced. */
const RENEW_BEFORE_MS = 7 * 86_400_000;
const MAX_BODY = 5 * 1024 * 1024;

const isWildcard = (host: string) => ['0.0.0.0', '::', ''].includes(host);

/** Whether a certificate covers a host name or address. */
function covers(x: X509Certificate, host: string): boolean {
  return isIP(host) ? x.checkIP(host) !== undefined : x.checkHost(host) !== undefined;
}

/**
 * The receiver's certificate, kept under `dir` (key.pem, cert.pem, ca.pem): generated on first use
 * for localhost, 127.0.0.1 and ::1 (and `host` when it is another name or address), and generated
 * again when the kept one is about to expire or does not cover `host`.
 */
export async function receiverCertificate(dir: string, host: string = DEMO_RECEIVER.host): Promise<ReceiverCertificate> {
  const abs = path.resolve(dir);
  const keyFile = path.join(abs, 'key.pem');
  const certFile = path.join(abs, 'cert.pem');
  const caFile = path.join(abs, 'ca.pem');
  const names = [...new Set([...LOOPBACK_NAMES, ...(isWildcard(host) ? [] : [host])])];
  if ([keyFile, certFile, caFile].every((f) => fs.existsSync(f))) {
    try {
      const key = fs.readFileSync(keyFile, 'utf8');
      const cert = fs.readFileSync(certFile, 'utf8');
      const x = new X509Certificate(cert);
      const validTo = new Date(x.validTo);
      if (validTo.getTime() - Date.now() > RENEW_BEFORE_MS && names.every((n) => covers(x, n))) {
        return { dir: abs, keyFile, certFile, caFile, key, cert, generated: false, validTo };
      }
    } catch {
      // Unreadable or not a certificate: make a new one.
    }
  }
  let generate: typeof import('selfsigned').generate;
  try {
    ({ generate } = require('selfsigned') as typeof import('selfsigned'));
  } catch {
    throw new CliError('webhook-receiver needs the `selfsigned` package, a dev dependency: run `npm install` (not `npm ci --omit=dev`).');
  }
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + VALID_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7 as const, ip: n } : { type: 2 as const, value: n })) },
    ],
  });
  fs.mkdirSync(abs, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyFile, pems.private, { mode: 0o600 });
  fs.writeFileSync(certFile, pems.cert);
  fs.writeFileSync(caFile, pems.cert);
  return { dir: abs, keyFile, certFile, caFile, key: pems.private, cert: pems.cert, generated: true, validTo: new Date(new X509Certificate(pems.cert).validTo) };
}

export interface ReceiverOptions {
  host: string;
  port: number;
  /** Where the certificate is kept. */
  dir: string;
  /** The service's base URL; its JWKS is at /api/lti/security/jwks. */
  service: string;
  /** One line per message goes here. */
  out: CliOutput;
}

export interface RunningReceiver {
  /** Base URL (https://host:port). */
  url: string;
  port: number;
  jwksUrl: string;
  certificate: ReceiverCertificate;
  close(): Promise<void>;
}

type Verdict = { ok: true } | { ok: false; reason: string };

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

/** Two URLs that name the same resource (scheme and host case, default port). */
function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** The JWKS endpoint of a service base URL (which may carry a path prefix). */
export function jwksUrlOf(service: string): URL {
  let base: URL;
  try {
    base = new URL(service);
  } catch {
    throw new CliError(`webhook-receiver: --service must be the service's URL, e.g. http://127.0.0.1:3000 (got "${service}")`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new CliError('webhook-receiver: --service must be an http or https URL');
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL('api/lti/security/jwks', base);
}

/** Starts the HTTPS receiver (the certificate is made or reused first). */
export async function startWebhookReceiver(opts: ReceiverOptions): Promise<RunningReceiver> {
  const jwksUrl = jwksUrlOf(opts.service);
  const certificate = await receiverCertificate(opts.dir, opts.host);
  const jwks = createRemoteJWKSet(jwksUrl, { timeoutDuration: 5000 });
  const seen = new Set<string>();

  const verify = async (req: IncomingMessage, body: Buffer): Promise<Verdict> => {
    const token = header(req, SIGNATURE_HEADER);
    if (!token) return { ok: false, reason: `no ${SIGNATURE_HEADER} header` };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, { issuer: 'canvas', algorithms: ['RS256'] }));
    } catch (e) {
      const err = e as Error & { code?: string };
      return { ok: false, reason: `${err.code ?? err.name}: ${err.message}` };
    }
    // The audience is the URL the service delivered to: this one, as the request names it.
    const here = `https://${header(req, 'host') ?? ''}${req.url ?? '/'}`;
    const auds = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!auds.some((a) => typeof a === 'string' && sameUrl(a, here))) return { ok: false, reason: `audience ${JSON.stringify(payload.aud)} is not ${here}` };
    if (payload.sub !== header(req, 'x-subscription-id')) return { ok: false, reason: 'sub is not the X-Subscription-Id' };
    if (payload.message_id !== header(req, 'x-message-id')) return { ok: false, reason: 'message_id is not the X-Message-Id' };
    if (payload.body_sha256 !== bodyDigest(body)) return { ok: false, reason: 'body_sha256 does not match the body' };
    return { ok: true };
  };

  const handle = async (req: IncomingMessage, body: Buffer): Promise<string> => {
    const event = header(req, 'x-event-name') ?? '-';
    const subscription = header(req, 'x-subscription-id') ?? '-';
    const message = header(req, 'x-message-id') ?? '-';
    const attempt = header(req, 'x-delivery-attempt') ?? '-';
    const verdict = await verify(req, body);
    const repeat = message !== '-' && seen.has(message);
    if (message !== '-') {
      seen.add(message);
      if (seen.size > 10_000) seen.delete(seen.values().next().value!);
    }
    const signature = verdict.ok ? 'signature ok' : `signature FAILED (${verdict.reason})`;
    return `${new Date().toISOString()} ${event} subscription=${subscription} message=${message} attempt=${attempt}${repeat ? ' (repeat)' : ''} ${signature}`;
  };

  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST', 'Content-Type': 'text/plain' }).end('POST webhook messages here.\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        return;
      }
      handle(req, Buffer.concat(chunks)).then(
        (line) => {
          println(opts.out, line);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        },
        (e) => {
          println(opts.out, `${new Date().toISOString()} could not handle a message: ${(e as Error).message}`);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        },
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new CliError(`webhook-receiver: ${opts.host}:${opts.port} is in use (another receiver running?); choose another --port`) : e),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = isWildcard(opts.host) ? '127.0.0.1' : opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `https://${shownHost}:${port}`,
    port,
    jwksUrl: jwksUrl.href,
    certificate,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The dispatcher keeps connections alive; do not wait for them.
        server.closeAllConnections();
      }),
  };
}

/** The allow-list entry a service needs to deliver to the receiver's address. */
function allowListFor(host: string): string {
  if (isWildcard(host) || host === 'localhost' || host.startsWith('127.')) return '127.0.0.0/8';
  if (host === '::1') return '::1/128';
  return isIP(host) ? host : `<the addresses ${host} resolves to>`;
}

/** A path relative to the working directory when it is beneath it (shorter to paste). */
function shortPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `./${rel}` : p;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      resolve(signal);
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
}

/** The CLI command: starts the receiver, prints how to point the service at it, runs until SIGINT/SIGTERM. */
export async function webhookReceiver(opts: Omit<ReceiverOptions, 'out'>, out: CliOutput): Promise<void> {
  const receiver = await startWebhookReceiver({ ...opts, out });
  const stopped = untilStopSignal();
  const { certificate: c } = receiver;
  println(out, `Webhook receiver listening on ${receiver.url} (POST to any path; the demo's subscription posts to ${DEMO_WEBHOOK_URL}).`);
  println(out, `Certificate ${c.generated ? 'generated' : 'kept from an earlier run'} in ${shortPath(c.dir)}, valid until ${c.validTo.toISOString().slice(0, 10)}.`);
  if (c.generated) println(out, 'A new certificate: restart the service (if running) so it trusts it.');
  println(out, `Signatures are verified with ${receiver.jwksUrl}.`);
  println(out, 'Start the service so it may deliver here and trusts this certificate:');
  println(out, `  WEBHOOK_ALLOW_PRIVATE_NETWORKS=${allowListFor(opts.host)} WEBHOOK_CA_FILE=${shortPath(c.caFile)} npm start`);
  println(out, 'Ctrl-C stops. One line per message:');
  const signal = await stopped;
  await receiver.close();
  println(out, `Webhook receiver stopped (${signal}).`);
}
