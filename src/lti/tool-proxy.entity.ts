import { Entity, Index } from 'typeorm';
import { IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../db/columns';

/**
 * An LTI 2 tool proxy (our simplified registration of a plagiarism-detection tool). Its shared secret
 * signs the tool's JWT assertions, so it is kept encrypted with the server key, never hashed.
 */
@Entity('lti_tool_proxies')
@Index(['contextType', 'contextId'])
@Index(['accountId', 'workflowState', 'id'])
@Index(['rootAccountId', 'workflowState', 'id'])
export class ToolProxy extends Timestamped {
  @Index({ unique: true })
  @StringColumn(64)
  guid: string;

  @StringColumn()
  name: string;

  /** AES-256-GCM ciphertext of the shared secret (base64 iv.tag.data). */
  @TextColumn({ nullable: false })
  sharedSecretEncrypted: string;

  /** JSON array of enabled capability strings. */
  @TextColumn({ nullable: false })
  capabilities: string;

  /** Where it is installed: Account or Course. */
  @StringColumn(16)
  contextType: 'Account' | 'Course';

  @IntColumn()
  contextId: number;

  /** The account that holds the installation: the context itself, or the course's account. */
  @Index()
  @IntColumn()
  accountId: number;

  @IntColumn()
  rootAccountId: number;

  @NullableInt()
  createdById: number | null;

  /** active or deleted. */
  @StringColumn(16, { default: 'active' })
  workflowState: 'active' | 'deleted';

  get capabilityList(): string[] {
    return JSON.parse(this.capabilities) as string[];
  }

  /**
   * Our stand-in for the global id of the developer key a Canvas tool proxy belongs to (through its
   * product family): each proxy is its own key, numbered as shard 1 global ids are.
   */
  get developerKey(): string {
    return String(10_000_000_000_000 + this.id);
  }
}
