import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { contentRoom } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * GraphiQL as a browser sees it: Debian's chromium, headless, with nothing reaching the internet.
 * CI installs chromium (.ci/run); a machine without it skips this file locally, but never in CI.
 */
const CHROMIUM = '/usr/bin/chromium';
const METRICS_TOKEN = 'graphiql-test-scrape-token';
const available = fs.existsSync(CHROMIUM);
if (!available && process.env.CI === 'true') {
  throw new Error(`${CHROMIUM} is missing: GraphiQL's browser test needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)`);
}

(available ? describe : describe.skip)('GraphiQL at GET /graphql', () => {
  jest.setTimeout(120_000);
  let server: TestServer;
  let world: World;
  let browser: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN });
    world = new World(server);
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'graphiql-chromium-'));
    // A new, empty profile (Playwright takes it as the persistent context's user data dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  /** A page that records every request, socket and CSP violation it makes. */
  async function open(): Promise<{ page: Page; requests: string[]; sockets: string[]; problems: string[] }> {
    const page = await browser.newPage();
    const requests: string[] = [];
    const sockets: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('websocket', (ws) => sockets.push(ws.url()));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    return { page, requests, sockets, problems };
  }

  /** Replaces the query editor's text (CodeMirror's own API; typing would fight its bracket closing). */
  async function setQuery(page: Page, query: string): Promise<void> {
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');
    await page.evaluate((q) => (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q), query);
    // GraphiQL parses the text after a short debounce; the fetcher picks graphql-ws from that parse.
    await page.waitForFunction((q) => (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.documentAST?.loc?.source?.body === q, query);
  }

  const responseText = (page: Page) => page.locator('.graphiql-response').innerText();

  async function useToken(page: Page, user: WorldUser): Promise<void> {
    await page.fill('#lms-token', user.token);
    await page.press('#lms-token', 'Enter');
  }

  it('loads from our own origin only, under a strict CSP, and runs a query with the token entered', async () => {
    const user = await world.user('Grace Browser');
    const html = await server.as(null).with({ Accept: 'text/html' }).get('/graphql');
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = html.headers.get('content-security-policy') ?? '';
    const host = new URL(server.url).host;
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        `connect-src 'self' ws://${host} wss://${host}`,
        "frame-ancestors 'none'",
      ]),
    );
    expect(csp).not.toContain('unsafe');
    // No inline script: every <script> names a file of ours.
    expect(html.text).not.toMatch(/<script(?![^>]*\ssrc="\/graphiql\/assets\/)/);

    const { page, requests, problems } = await open();
    const res = await page.goto(`${server.url}/graphql`);
    expect(res?.status()).toBe(200);
    await useToken(page, user);
    await setQuery(page, '{ viewer { _id name } }');
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.graphiql-response')?.textContent?.includes('Grace Browser'));
    const shown = await responseText(page);
    expect(shown).toContain(`"_id": "${user.id}"`);
    expect(shown).toContain('"name": "Grace Browser"');

    // Nothing left for another origin (no CDN, no fonts, no telemetry), and nothing was refused.
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((u) => !u.startsWith(`${server.url}/`) && !u.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('without a token the query runs anonymously: GraphQL answers, the viewer is null', async () => {
    const { page, problems } = await open();
    await page.goto(`${server.url}/graphql`);
    await setQuery(page, '{ viewer { name } }');
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => /"viewer": null/.test((globalThis as any).document.querySelector('.graphiql-response')?.textContent ?? ''));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('runs subscriptions over graphql-ws on the same host, authenticated with the token', async () => {
    const room = await contentRoom(world);
    const { page, sockets, problems } = await open();
    await page.goto(`${server.url}/graphql`);
    await useToken(page, room.student);
    await setQuery(page, 'subscription Planner { plannerChanged { change plannableType } }');
    await page.click('.graphiql-execute-button');
    // connection_init carried the token (else the socket closes with 4403) and the subscription is live.
    await waitForSubscribed(server);
    // A change to the student's planner reaches the page.
    const note = await room.student.api.post('/api/v1/planner_notes', { title: 'From the browser test', todo_date: '2031-01-01T12:00:00Z' });
    expect(note.status).toBeLessThan(300);
    await page.waitForFunction(() => /"plannerChanged"/.test((globalThis as any).document.querySelector('.graphiql-response')?.textContent ?? ''));
    const shown = await responseText(page);
    expect(shown).toContain('"plannableType": "planner_note"');
    expect(sockets).toEqual([`${server.url.replace(/^http/, 'ws')}/graphql`]);
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** Waits until the server's /metrics counts a live graphql-ws subscription. */
async function waitForSubscribed(server: TestServer): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = (await server.as(METRICS_TOKEN).get('/metrics')).text;
    if (/^lms_graphql_ws_subscriptions [1-9]/m.test(text)) return;
    if (Date.now() > deadline) throw new Error('no live graphql-ws subscription');
    await new Promise((r) => setTimeout(r, 25));
  }
}
