import { captureEvents, count, FORBIDDEN, ISO, useContentRoom } from './support/content';

const env = useContentRoom();
const { sink } = env;

const tools = () => `/api/v1/courses/${env.room.course.id}/external_tools`;
const SECRET = 'super-secret-shared-value';

describe('course external tools', () => {
  it('creates a tool and never shows its shared secret', async () => {
    const { result: res, events } = await captureEvents(sink, () =>
      env.room.teacher.api.post(tools(), { name: 'Lab Sim', url: 'https://lab.example.com/launch', consumer_key: 'key-1', shared_secret: SECRET, privacy_level: 'public', custom_fields: { course_code: 'BIO' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      name: 'Lab Sim',
      url: 'https://lab.example.com/launch',
      domain: null,
      consumer_key: 'key-1',
      privacy_level: 'public',
      workflow_state: 'public',
      custom_fields: { course_code: 'BIO' },
      created_at: expect.stringMatching(ISO),
    });
    expect(res.text).not.toContain(SECRET);
    expect(events).toEqual([{ type: 'content.changed', courseId: env.room.course.id, contentType: 'ExternalTool', contentId: res.body.id, change: 'created' }]);
    for (const who of [env.room.teacher, env.room.student]) {
      const shown = await who.api.get(`${tools()}/${res.body.id}`);
      expect(shown.status).toBe(200);
      expect(shown.text).not.toContain(SECRET);
    }
    const gql = await env.room.teacher.api.graphql(`query($id: ID!) { externalTool(id: $id) { name consumerKey privacyLevel } }`, { id: String(res.body.id) });
    expect(gql.data.externalTool).toEqual({ name: 'Lab Sim', consumerKey: 'key-1', privacyLevel: 'public' });
    expect(JSON.stringify(gql)).not.toContain(SECRET);
  });

  it('takes a domain instead of a URL, and defaults to anonymous privacy', async () => {
    const res = await env.room.ta.api.post(tools(), { name: 'Domain Tool', domain: 'tools.example.org' }, { json: true });
    expect(res.body).toMatchObject({ domain: 'tools.example.org', url: null, privacy_level: 'anonymous', consumer_key: null });
  });

  it.each([
    ['no name', { url: 'https://x.example.com' }, 'name'],
    ['neither url nor domain', { name: 'Nowhere' }, 'url'],
    ['a URL that is not http(s)', { name: 'Bad', url: 'javascript:alert(1)' }, 'url'],
    ['an unknown privacy level', { name: 'Bad', url: 'https://x.example.com', privacy_level: 'everyone' }, 'privacy_level'],
  ])('answers 400 for %s and stores nothing', async (_label, body, attr) => {
    const before = await count(env.server, 'context_external_tools');
    const res = await env.room.teacher.api.post(tools(), body);
    expect(res.status).toBe(400);
    expect(res.body.errors[attr][0].attribute).toBe(attr);
    expect(await count(env.server, 'context_external_tools')).toBe(before);
  });

  it('refuses students, observers, outsiders (403) and anonymous callers (401), storing nothing', async () => {
    const before = await count(env.server, 'context_external_tools');
    for (const who of [env.room.student, env.room.observer, env.room.outsider]) {
      const res = await who.api.post(tools(), { name: 'Nope', url: 'https://x.example.com' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect((await env.server.as(null).post(tools(), { name: 'Nope', url: 'https://x.example.com' })).status).toBe(401);
    expect(await count(env.server, 'context_external_tools')).toBe(before);
    expect((await env.room.outsider.api.get(tools())).status).toBe(403);
  });

  it('lists tools to course members, updates and deletes them', async () => {
    const t = (await env.room.teacher.api.post(tools(), { name: 'Editable', url: 'https://e.example.com' })).body;
    const list = await env.room.student.api.get(`${tools()}?per_page=100`);
    expect(list.body.map((x: any) => x.id)).toContain(t.id);
    expect((await env.room.student.api.put(`${tools()}/${t.id}`, { name: 'Hacked' })).status).toBe(403);
    const updated = await env.room.teacher.api.put(`${tools()}/${t.id}`, { name: 'Edited', shared_secret: SECRET });
    expect(updated.body).toMatchObject({ id: t.id, name: 'Edited', url: 'https://e.example.com' });
    expect(updated.text).not.toContain(SECRET);
    expect((await env.room.teacher.api.put(`${tools()}/${t.id}`, { url: '' })).status).toBe(400);
    const del = await env.room.teacher.api.delete(`${tools()}/${t.id}`);
    expect(del.body).toMatchObject({ id: t.id, workflow_state: 'deleted' });
    expect((await env.room.teacher.api.get(`${tools()}/${t.id}`)).status).toBe(404);
    expect((await env.room.student.api.get(`${tools()}?per_page=100`)).body.map((x: any) => x.id)).not.toContain(t.id);
  });
});
