import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A `jti` of an accepted JWT-bearer assertion, kept until the assertion could no longer be valid so
 * each one is single-use across every instance sharing the database (Canvas keeps `nonce:<sub>:<jti>`
 * in its cache for the same purpose). The key is a SHA-256 of guid and jti: fixed length, and exact
 * whatever the column collation.
 */
@Entity('lti_nonces')
export class LtiNonce {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  nonce: string;

  @Index()
  @Column({ type: 'datetime' })
  expiresAt: Date;
}
