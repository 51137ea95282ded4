import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { ErrorReport } from './error-report.entity';
import { ErrorReportService } from './error-report.service';
import { CreateErrorReportInput, CreateErrorReportPayload, ErrorReportConnection, ErrorReportsArgs, ErrorReportType } from './error-report.types';

registerNode(NodeType.ErrorReport, ErrorReport, (ctx, id) => ctx.use(ErrorReportService).find(id));

@Resolver(() => ErrorReportType)
export class ErrorReportResolver extends NodeResolver(NodeType.ErrorReport, ErrorReportType) {
  @Mutation(() => CreateErrorReportPayload, { description: 'Files a problem report, as the help dialog does; anonymous callers too.' })
  async createErrorReport(@Arg('input') input: CreateErrorReportInput, @Ctx() ctx: RequestContext) {
    const r = await mutationPayload(() => ctx.use(ErrorReportService).create(input));
    return { logged: Boolean(r.errorReport), errorReportId: r.errorReport ? String(r.errorReport.id) : null, errors: r.errors };
  }

  @Query(() => ErrorReportConnection, { description: 'Problem reports, newest first; site admins only.' })
  errorReportsConnection(@Args() args: ErrorReportsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ErrorReportService).list(args);
  }

  @Query(() => ErrorReportType, { description: 'One problem report by id or global id; site admins only.' })
  errorReport(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<ErrorReport> {
    return ctx.use(ErrorReportService).find(id);
  }

  @FieldResolver(() => GraphQLJSONObject, { nullable: true, description: 'Environment metadata as the client sent it or as the server collected it; never credentials.' })
  httpEnv(@Root() r: ErrorReport): Record<string, unknown> | null {
    return ErrorReportService.httpEnvObject(r);
  }

  @FieldResolver(() => UserType, { nullable: true })
  async user(@Root() r: ErrorReport, @Ctx() ctx: RequestContext): Promise<User | null> {
    // Reporters are shown to those who may read the report (site admins), checked on the report itself.
    if (r.userId == null || !(await orHidden(ctx.use(ErrorReportService).find(r.id)))) return null;
    return ctx.loaders.byId(User).load(r.userId);
  }
}
