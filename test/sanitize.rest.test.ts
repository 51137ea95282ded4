import { ConfigError, loadConfig } from '../src/config';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * User HTML (issue 10, finding 10; issue 19, item 8): students post HTML too, so what it may load or run is narrow:
 * iframes only from HTML_IFRAME_HOSTS, `data:` URLs only as image sources, styles from an allow-list.
 * Each case is stored through a public route and read back through one.
 */
let server: TestServer;
let world: World;
let room: Awaited<ReturnType<World['classroom']>>;

beforeAll(async () => {
  server = await startTestServer({ HTML_IFRAME_HOSTS: 'media.example.edu,www.youtube.com' });
  world = new World(server);
  room = await world.classroom();
});
afterAll(() => server.close());

const C = () => `/api/v1/courses/${room.course.id}`;

/** A student's discussion entry, stored and read back from the entry list. */
async function studentEntry(message: string): Promise<string> {
  const topic = await room.teacher.api.post(`${C()}/discussion_topics`, { title: 'Sanitiser', message: '<p>Reply below</p>', published: true });
  expect(topic.status).toBe(200);
  const posted = await room.student.api.post(`${C()}/discussion_topics/${topic.body.id}/entries`, { message });
  expect(posted.status).toBe(201);
  const list = await room.student.api.get(`${C()}/discussion_topics/${topic.body.id}/entries`);
  expect(list.status).toBe(200);
  const stored = list.body.find((e: { id: number }) => e.id === posted.body.id);
  expect(stored.message).toBe(posted.body.message);
  return stored.message;
}

/** A student's online_text_entry submission body, read back by the teacher. */
async function studentSubmission(body: string): Promise<string> {
  const a = await room.teacher.api.post(`${C()}/assignments`, { assignment: { name: 'Essay', published: true, points_possible: 5, submission_types: ['online_text_entry'] } });
  expect(a.status).toBe(201);
  const sub = await room.student.api.post(`${C()}/assignments/${a.body.id}/submissions`, { submission: { submission_type: 'online_text_entry', body } });
  expect(sub.status).toBe(201);
  const read = await room.teacher.api.get(`${C()}/assignments/${a.body.id}/submissions/${room.student.id}`);
  expect(read.status).toBe(200);
  return read.body.body;
}

/** A teacher's page body, read back by a student. */
async function pageBody(body: string): Promise<string> {
  const page = await room.teacher.api.post(`${C()}/pages`, { wiki_page: { title: `Page ${Math.random().toString(36).slice(2, 8)}`, body, published: true } });
  expect(page.status).toBe(200);
  const read = await room.student.api.get(`${C()}/pages/${page.body.url}`);
  expect(read.status).toBe(200);
  return read.body.body;
}

describe('iframes', () => {
  it('keeps an https iframe of a configured host (without `allow` grants) and drops any other', async () => {
    const message = await studentEntry(
      '<p>watch</p><iframe src="https://media.example.edu/embed/1" width="560" allow="camera; microphone; geolocation" allowfullscreen></iframe>' +
        '<iframe src="https://evil.example.com/login"></iframe>' +
        '<iframe src="https://media.example.edu.evil.example.com/x"></iframe>' +
        '<iframe src="http://media.example.edu/embed/plain-http"></iframe>' +
        '<iframe src="/files/1/download"></iframe>' +
        '<iframe srcdoc="<script>alert(1)</script>"></iframe>' +
        '<iframe src="javascript:alert(1)"></iframe>',
    );
    expect(message).toBe('<p>watch</p><iframe src="https://media.example.edu/embed/1" width="560" allowfullscreen></iframe>');
  });

  it('applies the same rule to submissions and pages', async () => {
    expect(await studentSubmission('<iframe src="https://evil.example.com/x"></iframe><iframe src="https://www.youtube.com/embed/abc"></iframe>')).toBe(
      '<iframe src="https://www.youtube.com/embed/abc"></iframe>',
    );
    // Not on this server's list, although it is in the default one.
    expect(await pageBody('<p>x</p><iframe src="https://player.vimeo.com/video/1"></iframe>')).toBe('<p>x</p>');
  });

  it('reads the host list from HTML_IFRAME_HOSTS, with video players by default and `none` for no iframes', () => {
    expect(loadConfig({}).HTML_IFRAME_HOSTS).toBe('www.youtube.com,www.youtube-nocookie.com,player.vimeo.com');
    expect(loadConfig({ HTML_IFRAME_HOSTS: 'none' }).HTML_IFRAME_HOSTS).toBe('none');
    expect(loadConfig({ HTML_IFRAME_HOSTS: 'a.example.edu, b.example.edu' }).HTML_IFRAME_HOSTS).toBe('a.example.edu, b.example.edu');
    for (const bad of ['https://www.youtube.com', 'www.youtube.com/embed', '*.example.com', 'a b.com', 'x,,y']) {
      expect(() => loadConfig({ HTML_IFRAME_HOSTS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ HTML_IFRAME_HOSTS: 'https://x' })).toThrow(/HTML_IFRAME_HOSTS/);
  });
});

describe('iframes with HTML_IFRAME_HOSTS=none', () => {
  let bare: TestServer;
  afterAll(() => bare?.close());

  it('keeps no iframe at all, not even a default video host', async () => {
    bare = await startTestServer({ HTML_IFRAME_HOSTS: 'none' });
    const r = await new World(bare).classroom();
    const page = await r.teacher.api.post(`/api/v1/courses/${r.course.id}/pages`, {
      wiki_page: { title: 'Video', body: '<p>v</p><iframe src="https://www.youtube.com/embed/abc"></iframe>', published: true },
    });
    expect(page.status).toBe(200);
    expect((await r.student.api.get(`/api/v1/courses/${r.course.id}/pages/${page.body.url}`)).body.body).toBe('<p>v</p>');
  });
});

describe('data: URLs', () => {
  it('keeps image data in img src only, and drops every other data: URL', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    const message = await studentEntry(
      `<img src="${png}" alt="dot">` +
        '<img src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==" alt="html">' +
        '<img src=" DATA:application/javascript,alert(1)" alt="js">' +
        '<img src="da&#x09;ta:text/html,x" alt="tab">' +
        '<a href="data:text/html,<script>alert(1)</script>">link</a>' +
        '<video src="data:video/mp4;base64,AAAA" poster="data:image/png;base64,AAAA" controls></video>' +
        '<video src="https://media.example.edu/v.mp4" poster="javascript:alert(1)"></video>' +
        '<audio src="data:audio/mpeg;base64,AAAA"></audio>',
    );
    expect(message).toBe(
      `<img src="${png}" alt="dot" /><img alt="html" /><img alt="js" /><img alt="tab" /><a>link</a>` +
        '<video controls></video><video src="https://media.example.edu/v.mp4"></video><audio></audio>',
    );
  });
});

describe('inline styles', () => {
  it('keeps formatting properties with plain values and drops the rest', async () => {
    const body = await studentSubmission(
      '<p style="color: #c00; background-color: rgb(255, 255, 0); text-align: center; font-size: 14px; font-weight: bold; font-style: italic; ' +
        'text-decoration: underline; margin: 0 auto; padding: 1em 2em; width: 50%; height: auto; border: 1px solid #ccc">ok</p>' +
        '<div style="position: fixed; top: 0; left: 0; z-index: 9999; width: 100vw; height: 100vh">overlay</div>' +
        '<span style="background-image: url(https://evil.example.com/track.png); color: red">tracked</span>' +
        '<span style="width: expression(alert(1)); background: url(javascript:alert(1)); behavior: url(x.htc)">ie</span>' +
        '<span style="color: var(--x); font-family: \'Comic Sans MS\', cursive; color: r\\65 d">escaped</span>' +
        `<span style='font-family: "Arial", sans-serif; color: red" onmouseover="alert(1)'>quoted</span>`,
    );
    expect(body).toBe(
      '<p style="color:#c00;background-color:rgb(255, 255, 0);text-align:center;font-size:14px;font-weight:bold;font-style:italic;' +
        'text-decoration:underline;margin:0 auto;padding:1em 2em;width:50%;height:auto;border:1px solid #ccc">ok</p>' +
        '<div>overlay</div>' +
        '<span style="color:red">tracked</span>' +
        '<span>ie</span>' +
        '<span style="font-family:\'Comic Sans MS\', cursive">escaped</span>' +
        '<span style="font-family:&quot;Arial&quot;, sans-serif">quoted</span>',
    );
  });

  it('holds teachers\' pages to the same list', async () => {
    expect(await pageBody('<h2 style="color: navy; position: absolute; background: url(x.png)">Week 1</h2>')).toBe('<h2 style="color:navy">Week 1</h2>');
  });
});

/** A student's discussion entry made through GraphQL's createDiscussionEntry, read back from its answer. */
async function studentEntryByGraphql(message: string): Promise<string> {
  const topic = await room.teacher.api.post(`${C()}/discussion_topics`, { title: 'Sanitiser (GraphQL)', message: '<p>Reply below</p>', published: true });
  expect(topic.status).toBe(200);
  const res = await room.student.api.graphql<any>(
    `mutation($input: CreateDiscussionEntryInput!) { createDiscussionEntry(input: $input) { discussionEntry { message } errors { attribute } } }`,
    { input: { discussionTopicId: String(topic.body.id), message } },
  );
  expect(res.errors).toBeUndefined();
  expect(res.data.createDiscussionEntry.errors).toBeNull();
  return res.data.createDiscussionEntry.discussionEntry.message;
}

describe('styles that would leave the post’s box (issue 19, item 8)', () => {
  it('drops negative margins, indents and letter-spacing, keeping the non-negative ones', async () => {
    const message = await studentEntry(
      '<div style="margin: -200px 0 0 -50px; margin-top: -9999px; margin-left: 10px">pulled</div>' +
        '<p style="text-indent: -9999px; letter-spacing: -20px; margin: 0 auto; vertical-align: -2px">indent</p>' +
        '<p style="margin-bottom: -1em; padding: 10px; margin-right: +5px">plus</p>',
    );
    expect(message).toBe(
      '<div style="margin-left:10px">pulled</div><p style="margin:0 auto;vertical-align:-2px">indent</p><p style="padding:10px;margin-right:+5px">plus</p>',
    );
  });

  it('drops every viewport unit, whichever property carries it', async () => {
    const units = ['vw', 'vh', 'vmin', 'vmax', 'dvh', 'svh', 'lvh', 'dvw', 'svw', 'lvw', 'vi', 'vb', 'cqw'];
    const html = units.map((u) => `<span style="width: 100${u}; height: 10${u}; font-size: 5${u}; margin: 1${u}; padding: 1${u}; min-height: 50${u}; line-height: 1${u}; border: 1${u} solid red; color: red">${u}</span>`).join('');
    const body = await studentSubmission(html);
    expect(body).toBe(units.map((u) => `<span style="color:red">${u}</span>`).join(''));
  });

  it('caps sizes, spacing, fonts, line heights and borders, in any unit', async () => {
    const message = await studentEntryByGraphql(
      '<p style="width: 3000px; height: 2001px; min-height: 200in; max-width: 101%; font-size: 97px; line-height: 40; padding: 501px; margin: 0 0 0 40cm; border: 21px solid red; border-width: 2em">big</p>' +
        '<p style="width: 2000px; height: 100%; min-height: 10in; max-width: 100%; font-size: 72pt; line-height: 4; padding: 500px; margin: 0 0 0 10cm; border: 20px solid red; border-width: 1em; border-radius: 50%">edge</p>' +
        '<p style="font-size: 6.1em; letter-spacing: 51px; border-spacing: 51px; text-indent: 51%; vertical-align: 101%">rel</p>',
    );
    expect(message).toBe(
      '<p>big</p>' +
        '<p style="width:2000px;height:100%;min-height:10in;max-width:100%;font-size:72pt;line-height:4;padding:500px;margin:0 0 0 10cm;border:20px solid red;border-width:1em;border-radius:50%">edge</p>' +
        '<p>rel</p>',
    );
  });

  it('caps the size attributes of images, tables and frames the same way', async () => {
    expect(await pageBody('<img src="/a.png" width="99999" height="100" alt="a"><img src="/b.png" width="150%" height="-5" alt="b"><table border="500" cellpadding="4"><tr><td>t</td></tr></table>')).toBe(
      '<img src="/a.png" height="100" alt="a" /><img src="/b.png" alt="b" /><table cellpadding="4"><tr><td>t</td></tr></table>',
    );
  });
});

describe('ids and API endpoints (issue 19, item 8)', () => {
  it('names every id and anchor under user_content_, and in-post fragment links follow them', async () => {
    const message = await studentEntry(
      '<h2 id="config">Part 1</h2><a href="#config">back</a><a name="ENV"></a><a href="#">top</a>' +
        '<form id="x"></form><img id="currentUser" src="/c.png"><span id="  ">blank</span>',
    );
    expect(message).toBe(
      '<h2 id="user_content_config">Part 1</h2><a href="#user_content_config">back</a><a name="user_content_ENV"></a><a href="#">top</a>' +
        '<img id="user_content_currentUser" src="/c.png" /><span>blank</span>',
    );
  });

  it('keeps ids as they are when HTML read back is saved again (pages, GraphQL entries)', async () => {
    const once = await pageBody('<h3 id="week-1">Week 1</h3><a href="#week-1">Week 1</a>');
    expect(once).toBe('<h3 id="user_content_week-1">Week 1</h3><a href="#user_content_week-1">Week 1</a>');
    expect(await pageBody(once)).toBe(once);
    expect(await studentEntryByGraphql('<p id="clobber">x</p>')).toBe('<p id="user_content_clobber">x</p>');
  });

  it('keeps data-api-endpoint only as a same-origin /api/v1/ path', async () => {
    const kept = ['/api/v1/courses/1/pages/week-1', '/api/v1/courses/1/files/2?include[]=usage_rights'];
    const refused = [
      'https://evil.example.com/api/v1/courses/1',
      '//evil.example.com/api/v1/courses/1',
      '/\\evil.example.com/api/v1/x',
      '/api/v1/\\evil',
      '/api/v1//evil.example.com',
      '/api/v1/../../login',
      '/api/v1/%2e%2e/%2e%2e/login',
      '/api/v2/courses/1',
      'api/v1/courses/1',
      'javascript:alert(1)',
      ' /api/v1/courses/1',
    ];
    const html = [...kept, ...refused].map((e, i) => `<a href="/x/${i}" data-api-endpoint="${e.replace(/&/g, '&amp;')}" data-api-returntype="Page">${i}</a>`).join('');
    const message = await studentEntry(html);
    const expected = [...kept, ...refused].map((e, i) =>
      i < kept.length ? `<a href="/x/${i}" data-api-endpoint="${e.replace(/&/g, '&amp;')}" data-api-returntype="Page">${i}</a>` : `<a href="/x/${i}" data-api-returntype="Page">${i}</a>`,
    );
    expect(message).toBe(expected.join(''));
  });
});
