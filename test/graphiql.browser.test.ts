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

  /** A page that records every request (and the GraphQL bodies it POSTs), socket and CSP violation it makes. */
  async function open(): Promise<{ page: Page; requests: string[]; posted: string[]; sockets: string[]; problems: string[] }> {
    const page = await browser.newPage();
    const requests: string[] = [];
    const posted: string[] = [];
    const sockets: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => {
      requests.push(r.url());
      if (r.method() === 'POST' && r.url() === `${server.url}/graphql`) posted.push(r.postData() ?? '');
    });
    page.on('websocket', (ws) => sockets.push(ws.url()));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    return { page, requests, posted, sockets, problems };
  }

  /** Replaces the query editor's text (CodeMirror's own API; typing would fight its bracket closing). */
  async function setQuery(page: Page, query: string): Promise<void> {
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');
    await page.evaluate((q) => (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q), query);
    // GraphiQL parses the text after a short debounce; the fetcher picks graphql-ws from that parse.
    await page.waitForFunction((q) => (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.documentAST?.loc?.source?.body === q, query);
  }

  const responseText = (page: Page) => page.locator('.graphiql-response').innerText();

  /** Enters a user's token and waits for the GraphiQL it mounts to have loaded the schema with it. */
  async function useToken(page: Page, user: WorldUser): Promise<void> {
    const introspected = page.waitForResponse((r) => r.url() === `${server.url}/graphql` && (r.request().postData() ?? '').includes('__schema') && r.status() === 200);
    await page.fill('#lms-token', user.token);
    await page.press('#lms-token', 'Enter');
    await introspected;
  }

  /** The response pane's text without CodeMirror's zero-width placeholder. */
  const shownText = async (page: Page) => (await responseText(page)).replace(/[\u200b\s]/g, '');

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

  it('asks for the token first: no introspection and no error before one is set; the schema loads once it is, and again when it changes', async () => {
    const user = await world.user('Ada First Screen');
    const { page, posted, problems } = await open();
    await page.goto(`${server.url}/graphql`);
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');
    // The token field has the focus and says what it is for.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('lms-token');
    expect(await page.getAttribute('#lms-token', 'placeholder')).toMatch(/token first/i);
    // Time enough for an introspection round trip on this machine (it took a few ms when it was sent).
    await page.waitForTimeout(1500);
    expect(posted.filter((b) => b.includes('__schema'))).toEqual([]);
    expect(await shownText(page)).toBe('');
    expect(await page.locator('.graphiql-doc-explorer-error, .graphiql-spinner').count()).toBe(0);

    // A bad token is answered with the server's refusal; a good one clears it and loads the schema.
    await page.fill('#lms-token', 'not-a-token');
    await page.press('#lms-token', 'Enter');
    await page.waitForFunction(() => /Invalid access token/.test((globalThis as any).document.querySelector('.graphiql-response')?.textContent ?? ''));
    await useToken(page, user);
    await page.waitForFunction(() => !/Invalid access token/.test((globalThis as any).document.querySelector('.graphiql-response')?.textContent ?? ''));
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForSelector('.graphiql-doc-explorer-root-type');
    expect(await page.locator('.graphiql-doc-explorer-root-type').allInnerTexts()).toEqual(expect.arrayContaining(['query', 'mutation', 'subscription']));
    expect(await shownText(page)).toBe('');
    expect(posted.filter((b) => b.includes('__schema')).length).toBeGreaterThanOrEqual(2);
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

  it('sends a subscription over the socket even when Run is pressed before GraphiQL has parsed the text', async () => {
    const room = await contentRoom(world);
    const { page, posted, sockets, problems } = await open();
    await page.goto(`${server.url}/graphql`);
    await useToken(page, room.student);
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');
    // A named subscription, run at once: GraphiQL's own parse (and operation name) still describe the default query.
    await page.evaluate(() => {
      const doc = (globalThis as any).document;
      doc.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('subscription RightAway { plannerChanged { change plannableType } }');
      doc.querySelector('.graphiql-execute-button').click();
    });
    await waitForSubscribed(server);
    const note = await room.student.api.post('/api/v1/planner_notes', { title: 'Right away', todo_date: '2031-01-02T12:00:00Z' });
    expect(note.status).toBeLessThan(300);
    await page.waitForFunction(() => /"plannerChanged"/.test((globalThis as any).document.querySelector('.graphiql-response')?.textContent ?? ''));
    expect(await responseText(page)).not.toContain('SUBSCRIPTION_OVER_HTTP');
    expect(posted.filter((b) => b.includes('plannerChanged'))).toEqual([]);
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
