import { Validator } from '../../common/errors';
import type { Course } from '../../courses/course.entity';
import { pagePerParent, settleEach } from '../../db/page-per-parent';
import { transaction } from '../../db/transaction';
import type { RequestContext } from '../../request/context';
import { ConnectionResult } from '../../common/relay';
import { fitText } from '../content-columns';
import { ExternalTool, PRIVACY_LEVELS } from './external-tool.entity';
import { ContentAccess } from '../content-access';

export interface ExternalToolFields {
  name?: string | null;
  description?: string | null;
  url?: string | null;
  domain?: string | null;
  consumerKey?: string | null;
  sharedSecret?: string | null;
  privacyLevel?: string | null;
  /** Custom launch fields as name/value pairs. */
  customFields?: { name: string; value: string }[] | null;
}

/**
 * Course external tools (Canvas's ContextExternalTool, minimal): managed by those who manage the
 * course's content (Canvas's lti_add_edit goes to the same roles), listed to anyone who reads the course.
 */
export class ExternalToolService {
  constructor(private readonly ctx: RequestContext) {}

  private get access() {
    return this.ctx.use(ContentAccess);
  }

  async find(courseRaw: string | number | null | undefined, raw: string | number): Promise<{ course: Course; tool: ExternalTool }> {
    const { course, object } = await this.access.locate(ExternalTool, 'ExternalTool', courseRaw, raw);
    return { course, tool: object };
  }

  private async managed(courseRaw: string | null | undefined, raw: string): Promise<{ course: Course; tool: ExternalTool }> {
    const { course, object } = await this.access.managed(ExternalTool, 'ExternalTool', courseRaw, raw, 'manage_content');
    return { course, tool: object };
  }

  /** Active tools of a course by id. Batched across courses. */
  listForCourse(course: Course, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<ExternalTool>> {
    return this.ctx.loaders.perParent('externalTools', args, (courses: readonly Course[]) => this.listForCourses(courses, args)).load(course);
  }

  /** One page of tools per course in one statement pair; a course the viewer may not read is refused alone. */
  async listForCourses(courses: readonly Course[], args: { first?: number | null; after?: string | null }): Promise<(ConnectionResult<ExternalTool> | Error)[]> {
    const readable = await settleEach(courses, (c) => this.access.assertReadable(c));
    const qb = this.ctx.ds.getRepository(ExternalTool).createQueryBuilder('t').where('t.workflow_state = :active', { active: 'active' });
    const pages = await pagePerParent(qb, 'course_id', [['id', 'ASC']], courses.filter((_, i) => !(readable[i] instanceof Error)).map((c) => c.id), args);
    return courses.map((c, i) => (readable[i] instanceof Error ? (readable[i] as Error) : pages.get(c.id)!));
  }

  private validate(input: ExternalToolFields, existing: ExternalTool | null): void {
    const v = new Validator();
    if (input.name !== undefined || !existing) {
      const name = input.name?.trim() ?? '';
      v.check(name.length > 0, 'name', 'blank');
      v.check(name.length <= 255, 'name', 'too_long', 'Name is too long (maximum is 255 characters)');
    }
    const url = input.url !== undefined ? input.url : existing?.url;
    const domain = input.domain !== undefined ? input.domain : existing?.domain;
    if (!url && !domain) v.add('url', 'invalid', 'Either the url or domain should be set.');
    if (input.url) v.check(isHttpUrl(input.url), 'url', 'invalid', 'is not a valid URL');
    if (input.domain) v.check(/^[a-z0-9.-]+(:\d+)?$/i.test(input.domain.trim()), 'domain', 'invalid', 'is not a valid domain');
    if (input.privacyLevel != null) v.check((PRIVACY_LEVELS as readonly string[]).includes(input.privacyLevel), 'privacy_level', 'inclusion', `privacy_level must be one of ${PRIVACY_LEVELS.join(', ')}`);
    for (const f of input.customFields ?? []) v.check(/^\w+$/.test(f.name), 'custom_fields', 'invalid', `invalid custom field name "${f.name}"`);
    v.throwIfInvalid();
  }

  private apply(t: ExternalTool, input: ExternalToolFields): void {
    if (input.name != null) t.name = input.name.trim();
    if (input.description !== undefined) t.description = fitText(input.description || null, 'description', 'Description');
    if (input.url !== undefined) t.url = input.url?.trim() || null;
    if (input.domain !== undefined) t.domain = input.domain?.trim() || null;
    if (input.consumerKey !== undefined) t.consumerKey = input.consumerKey || null;
    if (input.sharedSecret !== undefined) t.sharedSecret = input.sharedSecret || null;
    if (input.privacyLevel != null) t.privacyLevel = input.privacyLevel;
    if (input.customFields != null) t.customFields = fitText(input.customFields.length ? JSON.stringify(Object.fromEntries(input.customFields.map((f) => [f.name, f.value]))) : null, 'custom_fields', 'Custom fields');
  }

  async create(courseRaw: string, input: ExternalToolFields): Promise<{ externalTool: ExternalTool }> {
    const course = await this.access.readableCourse(courseRaw);
    await this.access.assert(course, 'manage_content');
    this.validate(input, null);
    return transaction(this.ctx.ds, async (em) => {
      const t = em.getRepository(ExternalTool).create({ courseId: course.id, name: '', description: null, url: null, domain: null, consumerKey: null, sharedSecret: null, privacyLevel: 'anonymous', customFields: null, workflowState: 'active' });
      this.apply(t, input);
      const tool = await em.getRepository(ExternalTool).save(t);
      await this.access.changed(em, course.id, 'ExternalTool', tool.id, 'created');
      return { externalTool: tool };
    });
  }

  async update(courseRaw: string | null | undefined, raw: string, input: ExternalToolFields): Promise<{ externalTool: ExternalTool }> {
    const { course, tool } = await this.managed(courseRaw, raw);
    this.validate(input, tool);
    return transaction(this.ctx.ds, async (em) => {
      this.apply(tool, input);
      await em.getRepository(ExternalTool).save(tool);
      await this.access.changed(em, course.id, 'ExternalTool', tool.id, 'updated');
      return { externalTool: tool };
    });
  }

  async delete(courseRaw: string | null | undefined, raw: string): Promise<{ externalTool: ExternalTool }> {
    const { course, tool } = await this.managed(courseRaw, raw);
    return transaction(this.ctx.ds, async (em) => {
      tool.workflowState = 'deleted';
      await em.getRepository(ExternalTool).save(tool);
      await this.access.changed(em, course.id, 'ExternalTool', tool.id, 'deleted');
      return { externalTool: tool };
    });
  }

  customFields(t: ExternalTool): { name: string; value: string }[] {
    return Object.entries(t.customFields ? (JSON.parse(t.customFields) as Record<string, string>) : {}).map(([name, value]) => ({ name, value: String(value) }));
  }
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && Boolean(u.hostname);
  } catch {
    return false;
  }
}
