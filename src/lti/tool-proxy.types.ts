import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('ToolProxy', {
  implements: Node,
  description: 'An LTI 2 tool proxy (a plagiarism-detection tool) installed in an account or course. Its shared secret is shown only on creation.',
})
export class ToolProxyType extends Node {
  @Field(() => ID)
  _id: string;
  @Field({ description: 'Identifies the tool: the `sub` of its JWT-bearer assertions.' })
  guid: string;
  @Field()
  name: string;
  @Field(() => [String], { description: 'Enabled capabilities, e.g. vnd.instructure.webhooks.root_account.all.' })
  capabilities: string[];
  @Field({ description: 'Account or Course: where the tool is installed.' })
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field(() => ID, { description: 'The account holding the installation (the course account for a course).' })
  accountId: number;
  @Field(() => ID)
  rootAccountId: number;
  @Field({ description: 'active or deleted' })
  workflowState: string;
  @Field({ description: 'The developer key (global id) its subscriptions carry.' })
  developerKey: string;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const ToolProxyConnection = Connection('ToolProxy', ToolProxyType);

@ArgsType()
export class ToolProxiesArgs extends ConnectionArgs {}

@InputType()
export class CreateToolProxyInput {
  @Field(() => ID, { description: 'The account registering the tool: id, `self` or sis_account_id:…' })
  accountId: string;
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => [String], { nullable: true, description: 'Capabilities of the spec table (vnd.instructure.webhooks.<scope>.<event>).' })
  capabilities?: string[] | null;
  @Field(() => String, { nullable: true, description: 'Account (default: the registering account) or Course.' })
  contextType?: string | null;
  @Field(() => ID, { nullable: true, description: 'A course in the account, or the account itself or one of its sub-accounts.' })
  contextId?: string | null;
}

@InputType()
export class UpdateToolProxyInput {
  @Field(() => ID)
  id: string;
  @Field(() => ID, { nullable: true, description: 'When given, the tool proxy must belong to this account (or one beneath it).' })
  accountId?: string | null;
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => [String], { nullable: true, description: 'The new full capability list.' })
  capabilities?: string[] | null;
}

export const ToolProxyPayload = PayloadType('ToolProxyPayload', { toolProxy: () => ToolProxyType });

@ObjectType()
export class CreateToolProxyPayload extends ToolProxyPayload {
  @Field(() => String, { nullable: true, description: 'The shared secret, in this response only: it signs the tool’s JWT assertions.' })
  sharedSecret?: string | null;
}

@InputType({ description: 'An OAuth 2 JWT-bearer grant (RFC 7523), as POST /api/lti/{accounts|courses}/:id/authorize takes it.' })
export class LtiAuthorizeInput {
  @Field({ description: 'Account or Course.' })
  contextType: string;
  @Field(() => ID, { description: 'The id as written in the authorize URL: the assertion’s aud must be <base>/api/lti/<accounts|courses>/<id>/authorize.' })
  contextId: string;
  @Field(() => String, { nullable: true, description: 'urn:ietf:params:oauth:grant-type:jwt-bearer' })
  grantType?: string | null;
  @Field(() => String, { nullable: true, description: 'HS256 JWT signed with the tool proxy’s shared secret.' })
  assertion?: string | null;
}

@ObjectType('LtiAccessToken', { description: 'Canvas’s token response: a JWT for /api/lti/subscriptions and tool GraphQL operations.' })
export class LtiAccessTokenType {
  @Field()
  accessToken: string;
  @Field()
  tokenType: string;
  @Field({ description: 'Seconds, as a string (as Canvas answers).' })
  expiresIn: string;
}
