import { raise } from '../events/domain-events';
import { EntityManager, In } from 'typeorm';
import type { Course } from '../courses/course.entity';
import { NotFoundError, RequestError } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import type { ConnectionResult } from '../common/relay';
import { keysetConnection } from '../common/connection';
import { keyWindow } from '../common/keyset';
import { ContentInfo, contentAdapter } from './content-registry';
import { ItemType, ModuleItem } from './module-item.entity';
import { ItemInput, parseItemType, requirementOf, resolveContent, validateItemInput } from './module-item-input';
import { ModuleItemView, ModuleView } from './module-views';
import { ContextModule } from './module.entity';
import { placeAt, renumber } from './positions';
import { ModuleService } from './module.service';
import { publishContent } from './module-publishing';

export type { ItemInput, RequirementInput } from './module-item-input';
import { itemKey, ModuleItemReads } from './module-item-reads';
import { ProgressService } from './progress.service';

export class ModuleItemService {
  constructor(private readonly ctx: RequestContext) {}

  private get modules() {
    return this.ctx.use(ModuleService);
  }

  /** Content objects of items, batched per kind across every module (and course) of the request. */
  contentOf(courseId: number, item: ModuleItem): Promise<ContentInfo | null> {
    return this.ctx.use(ModuleItemReads).contentOf(courseId, item);
  }

  /** Items of a module the viewer sees (see ModuleItemReads). */
  visibleItems(view: ModuleView): Promise<ModuleItemView[]> {
    return this.ctx.use(ModuleItemReads).visibleItems(view);
  }

  /**
   * A page of a module's visible items, cut in SQL on the (module, position, id) index: key set
   * cursors (legacy offset cursors still honoured), the total counted only when selected.
   */
  async list(courseRaw: string, moduleRaw: string, args: { first?: number | null; after?: string | null; searchTerm?: string | null; studentId?: string | null }): Promise<ConnectionResult<ModuleItemView>> {
    const view = await this.modules.show(courseRaw, moduleRaw, { studentId: args.studentId });
    const term = args.searchTerm?.trim().toLowerCase();
    if (term != null && args.searchTerm != null && term.length < 2) {
      throw new RequestError('search_term too short', 400, { errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }] });
    }
    const reads = this.ctx.use(ModuleItemReads);
    const w = keyWindow(args, 2);
    const rows = await reads.page(view, w, term || null);
    return keysetConnection(rows, w, itemKey, () => reads.count(view, term || null));
  }

  async show(courseRaw: string, moduleRaw: string, itemRaw: string, args: { studentId?: string | null } = {}): Promise<ModuleItemView> {
    const view = await this.modules.show(courseRaw, moduleRaw, args);
    const id = parseIdParam(itemRaw);
    const found = id.kind === 'id' ? await this.ctx.use(ModuleItemReads).one(view, id.id) : null;
    if (!found) throw new NotFoundError();
    return found;
  }

  // ---- writes -----------------------------------------------------------------------------------

  async create(courseRaw: string, moduleRaw: string, input: ItemInput): Promise<{ moduleItem: ModuleItemView }> {
    const course = await this.modules.course(courseRaw);
    await this.modules.assertManage(course);
    const module = await this.modules.lookup(course, moduleRaw);
    const type = parseItemType(input.type);
    if (!type) throw new RequestError('invalid module item type', 400, { errors: { type: [{ attribute: 'type', type: 'invalid', message: 'Invalid module item type' }] } });
    validateItemInput(input, type);
    if ((type === 'ExternalUrl' || type === 'ExternalTool') && !input.externalUrl) {
      throw new RequestError('missing external_url parameter', 400, { errors: { external_url: [{ attribute: 'external_url', type: 'blank', message: 'external_url is required' }] } });
    }
    if (type === 'SubHeader' && !input.title?.trim()) {
      throw new RequestError('missing title', 400, { errors: { title: [{ attribute: 'title', type: 'blank', message: 'title is required for a SubHeader' }] } });
    }
    const { contentId, info } = await resolveContent(this.ctx, course, type, input);
    const req = requirementOf(input.completionRequirement, type, info);
    const title = input.title?.trim() || info?.title || input.externalUrl || '';
    if (!title) throw new RequestError('missing title', 400, { errors: { title: [{ attribute: 'title', type: 'blank', message: 'title is required' }] } });
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(ModuleItem);
      const siblings = await repo.find({ where: { moduleId: module.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
      const item = repo.create({
        courseId: course.id,
        moduleId: module.id,
        contentType: type,
        contentId,
        title,
        indent: input.indent ?? 0,
        position: siblings.length + 1,
        url: type === 'ExternalUrl' || type === 'ExternalTool' ? input.externalUrl ?? info?.url ?? null : null,
        newTab: type === 'ExternalTool' ? input.newTab ?? null : null,
        iframeWidth: type === 'ExternalTool' ? input.iframeWidth ?? null : null,
        iframeHeight: type === 'ExternalTool' ? input.iframeHeight ?? null : null,
        requirementType: req?.type ?? null,
        requirementMinScore: req?.minScore ?? null,
        requirementMinPercentage: req?.minPercentage ?? null,
        // Linked content decides: a published object gives a published item; urls, tools and headers start unpublished.
        workflowState: info?.published && type !== 'ExternalTool' ? 'active' : 'unpublished',
      });
      await repo.save(item);
      await repo.save(placeAt([...siblings, item], item, input.position));
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      return { moduleItem: new ModuleItemView(item, new ModuleView(module, course, null, true, null, this.ctx.baseUrl), info) };
    });
  }

  private async lookup(course: Course, module: ContextModule, raw: string, em?: EntityManager): Promise<ModuleItem> {
    const p = parseIdParam(raw);
    if (p.kind !== 'id') throw new NotFoundError();
    const item = await (em ?? this.ctx.ds.manager).getRepository(ModuleItem).findOneBy({ id: p.id, moduleId: module.id, courseId: course.id });
    if (!item || item.workflowState === 'deleted') throw new NotFoundError();
    return item;
  }

  async update(courseRaw: string, moduleRaw: string, itemRaw: string, input: ItemInput): Promise<{ moduleItem: ModuleItemView }> {
    const course = await this.modules.course(courseRaw);
    await this.modules.assertManage(course);
    const module = await this.modules.lookup(course, moduleRaw);
    const item = await this.lookup(course, module, itemRaw);
    validateItemInput(input, item.contentType);
    let target = module;
    if (input.moduleId != null && input.moduleId !== '' && String(input.moduleId) !== String(module.id)) {
      target = await this.modules.lookup(course, input.moduleId).catch(() => {
        throw new RequestError('invalid module_id', 400, { message: 'invalid module_id' });
      });
    }
    const info = await this.contentOf(course.id, item);
    const req = input.clearRequirement ? { type: null, minScore: null, minPercentage: null } : requirementOf(input.completionRequirement, item.contentType, info);
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(ModuleItem);
      if (input.title != null && input.title.trim()) {
        item.title = input.title.trim();
        if (item.contentId != null && ['Assignment', 'Quiz', 'Page', 'Discussion'].includes(item.contentType)) {
          await contentAdapter(item.contentType)?.rename?.(em, course.id, item.contentId, item.title);
        }
      }
      if (input.indent != null) item.indent = input.indent;
      if (input.newTab != null && item.contentType === 'ExternalTool') item.newTab = input.newTab;
      if (input.externalUrl != null && (item.contentType === 'ExternalUrl' || item.contentType === 'ExternalTool')) item.url = input.externalUrl;
      if (req !== undefined) {
        item.requirementType = req.type;
        item.requirementMinScore = req.minScore;
        item.requirementMinPercentage = req.minPercentage;
      }
      if (input.published != null) {
        item.workflowState = input.published ? 'active' : 'unpublished';
        if (item.contentId != null) await publishContent(this.ctx, em, course, item.contentType, [item.contentId], input.published);
      }
      if (target.id !== module.id) {
        const oldSiblings = await repo.find({ where: { moduleId: module.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
        item.moduleId = target.id;
        await repo.save(renumber(oldSiblings.filter((s) => s.id !== item.id)));
        const newSiblings = await repo.find({ where: { moduleId: target.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
        item.position = newSiblings.length + 1;
        await repo.save(placeAt([...newSiblings, item], item, input.position));
      } else if (input.position != null) {
        const siblings = await repo.find({ where: { moduleId: module.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
        await repo.save(placeAt(siblings.map((s) => (s.id === item.id ? item : s)), item, input.position));
      }
      await repo.save(item);
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      const view = new ModuleView(target, course, null, true, null, this.ctx.baseUrl);
      return { moduleItem: new ModuleItemView(item, view, info) };
    });
  }

  async delete(courseRaw: string, moduleRaw: string, itemRaw: string): Promise<{ moduleItem: ModuleItemView }> {
    const course = await this.modules.course(courseRaw);
    await this.modules.assertManage(course);
    const module = await this.modules.lookup(course, moduleRaw);
    const item = await this.lookup(course, module, itemRaw);
    const info = await this.contentOf(course.id, item);
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(ModuleItem);
      item.workflowState = 'deleted';
      await repo.save(item);
      const siblings = await repo.find({ where: { moduleId: module.id, workflowState: In(['active', 'unpublished']) }, order: { position: 'ASC', id: 'ASC' } });
      await repo.save(renumber(siblings));
      await this.ctx.use(ProgressService).markStale(em, { courseId: course.id });
      return { moduleItem: new ModuleItemView(item, new ModuleView(module, course, null, true, null, this.ctx.baseUrl), info) };
    });
  }

  // ---- progress actions -------------------------------------------------------------------------

  /** POST …/mark_read: a view on a visible, unlocked item; 403 when locked. */
  async markRead(courseRaw: string, moduleRaw: string, itemRaw: string): Promise<{ message: string }> {
    const found = await this.show(courseRaw, moduleRaw, itemRaw);
    const viewer = this.ctx.authz.requireViewer();
    if (await this.lockedFor(found, viewer.id)) throw new RequestError('The module item is locked.', 403, { message: 'The module item is locked.' });
    await transaction(this.ctx.ds, (em) => this.ctx.use(ProgressService).record(em, found.module.course, viewer.id, found.item, 'must_view'));
    return { message: 'OK' };
  }

  /** GET …/module_item_redirect/:id: records the view of an ExternalUrl item and gives its URL. */
  async followRedirect(courseRaw: string, itemRaw: string): Promise<{ url: string }> {
    const course = await this.modules.course(courseRaw);
    const p = parseIdParam(itemRaw);
    const item = p.kind === 'id' ? await this.ctx.ds.getRepository(ModuleItem).findOneBy({ id: p.id, courseId: course.id }) : null;
    if (!item || item.workflowState === 'deleted') throw new NotFoundError();
    if (item.contentType !== 'ExternalUrl') throw new RequestError('incorrect module item type', 400, { message: 'incorrect module item type' });
    const found = await this.show(String(course.id), String(item.moduleId), String(item.id));
    const viewer = this.ctx.authz.requireViewer();
    if (!(await this.lockedFor(found, viewer.id))) {
      await transaction(this.ctx.ds, (em) => this.ctx.use(ProgressService).record(em, course, viewer.id, item, 'must_view'));
    }
    return { url: item.url ?? '' };
  }

  /** PUT / DELETE …/done. */
  async setDone(courseRaw: string, moduleRaw: string, itemRaw: string, done: boolean): Promise<{ message: string }> {
    const found = await this.show(courseRaw, moduleRaw, itemRaw);
    const viewer = this.ctx.authz.requireViewer();
    await transaction(this.ctx.ds, async (em) => {
      if (done) await this.ctx.use(ProgressService).record(em, found.module.course, viewer.id, found.item, 'must_mark_done');
      else await this.ctx.use(ProgressService).unrecord(em, found.module.course, viewer.id, found.item);
      // Canvas also marks the content complete (or not) on the student's planner (src/planner follows the event).
      const { requirementType, contentType, contentId } = found.item;
      await raise(em, this.ctx, { type: 'module_item.done_changed', courseId: found.item.courseId, userId: viewer.id, done, item: { requirementType, contentType, contentId } });
    });
    return { message: 'OK' };
  }

  /** Locked for a student: module locked, item behind sequential progress, or content locked by dates. */
  async lockedFor(view: ModuleItemView, userId: number): Promise<boolean> {
    if (!(await this.ctx.use(ProgressService).isStudent(view.module.course, userId))) return false;
    const progressions = await this.ctx.use(ProgressService).forStudent(view.module.course, userId);
    const p = progressions.get(view.item.moduleId);
    if (!p || p.state === 'locked') return true;
    if (p.lockedItemIds.includes(view.item.id)) return true;
    const now = Date.now();
    const c = view.content;
    return Boolean(c && ((c.unlockAt && c.unlockAt.getTime() > now) || (c.lockAt && c.lockAt.getTime() < now)));
  }

  /** Items of the course linking a content object (for progress events and sequences). */
  itemsLinking(em: EntityManager, courseId: number, type: ItemType, contentId: number): Promise<ModuleItem[]> {
    return em.getRepository(ModuleItem).findBy({ courseId, contentType: type, contentId, workflowState: In(['active', 'unpublished']) });
  }
}
