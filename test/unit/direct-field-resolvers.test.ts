import 'reflect-metadata';
import { graphql, GraphQLObjectType } from 'graphql';
import { Arg, buildSchemaSync, Ctx, Field, FieldResolver, ObjectType, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { resolveFieldResolversDirectly } from '../../src/graphql/direct-field-resolvers';

class Thing {
  constructor(
    public id = 0,
    public name = '',
  ) {}

  tag(): string {
    return `#${this.id}`;
  }
}

@ObjectType()
class ThingType {
  @Field()
  name: string;
}

const seen: unknown[] = [];

@Resolver(() => ThingType)
class ThingResolver {
  @Query(() => [ThingType])
  things(): unknown[] {
    // A plain object root: type-graphql makes a Thing of it for @Root() t: Thing.
    return [new Thing(1, 'a'), { id: 2, name: 'b' }];
  }

  @FieldResolver(() => String)
  label(@Root() t: Thing, @Arg('prefix', () => String, { nullable: true }) prefix: string | null, @Ctx() ctx: { suffix: string }): string {
    return `${prefix ?? ''}${t.tag()}${ctx.suffix}`;
  }

  @FieldResolver(() => [String])
  echo(@Arg('xs', () => [String]) xs: string[]): string[] {
    seen.push(xs);
    return [...xs, String(xs.length)];
  }

  @FieldResolver(() => String)
  @UseMiddleware(async (_data, next) => `mw:${await next()}`)
  wrapped(@Root() t: Thing): string {
    return t.name;
  }
}

describe('resolveFieldResolversDirectly', () => {
  const schema = buildSchemaSync({ resolvers: [ThingResolver], validate: false });
  const fields = (schema.getType('ThingType') as GraphQLObjectType).getFields();
  const before = { label: fields.label.resolve, echo: fields.echo.resolve, wrapped: fields.wrapped.resolve };
  resolveFieldResolversDirectly(schema, [ThingResolver]);

  it('replaces plain field resolvers, and keeps type-graphql for those with middlewares', () => {
    expect(fields.label.resolve).not.toBe(before.label);
    expect(fields.echo.resolve).not.toBe(before.echo);
    expect(fields.wrapped.resolve).toBe(before.wrapped);
  });

  it('answers as type-graphql does: arguments, context, a converted root, a copied list argument', async () => {
    const variables = { xs: ['x', 'y'] };
    const res = await graphql({
      schema,
      source: 'query($xs: [String!]!) { things { name label(prefix: "p") echo(xs: $xs) wrapped } }',
      contextValue: { suffix: '!' },
      variableValues: variables,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      things: [
        { name: 'a', label: 'p#1!', echo: ['x', 'y', '2'], wrapped: 'mw:a' },
        { name: 'b', label: 'p#2!', echo: ['x', 'y', '2'], wrapped: 'mw:b' },
      ],
    });
    for (const xs of seen) expect(xs).not.toBe(variables.xs);
  });
});
