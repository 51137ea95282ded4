import type { JWK } from 'jose';
import type { DataSource } from 'typeorm';
import { Setting } from '../db/setting.entity';

/** What a ring keeps of each key: its id, its public half as published, and its sealed private half. */
export interface RingKey {
  kid: string;
  publicJwk: JWK;
  privateKey: string;
}

/**
 * The service's signing keys of one kind (RS256 in signing-keys.ts, Ed25519 in
 * standard-signatures.ts), kept in one settings row, oldest first. The first key is generated on
 * first use; a rotation appends one, which signs from then on, and keeps the last `keep` published so
 * receivers can verify messages signed just before it.
 */
export class KeyRing<K extends RingKey> {
  constructor(
    private readonly setting: string,
    /** Names the key in the error when none can be stored. */
    private readonly what: string,
    private readonly newKey: (tokenKey: string) => K | Promise<K>,
    private readonly keep = 3,
  ) {}

  private async read(ds: DataSource): Promise<K[] | null> {
    const row = await ds.getRepository(Setting).findOneBy({ name: this.setting });
    return row ? (JSON.parse(row.value) as K[]) : null;
  }

  /** The stored keys, generating the first one when there is none (concurrent first starts agree on one). */
  async keys(ds: DataSource, tokenKey: string): Promise<K[]> {
    const found = await this.read(ds);
    if (found?.length) return found;
    const keys = [await this.newKey(tokenKey)];
    try {
      await ds.getRepository(Setting).insert({ name: this.setting, value: JSON.stringify(keys) });
      return keys;
    } catch {
      // Another process generated them first: use theirs.
      const theirs = await this.read(ds);
      if (theirs?.length) return theirs;
      throw new Error(`could not store the ${this.what}`);
    }
  }

  /** Adds a new key (used from now on), keeping the last few. Returns its kid. */
  async rotate(ds: DataSource, tokenKey: string): Promise<string> {
    const keys = await this.keys(ds, tokenKey);
    const next = await this.newKey(tokenKey);
    await ds.getRepository(Setting).update({ name: this.setting }, { value: JSON.stringify([...keys, next].slice(-this.keep)) });
    return next.kid;
  }

  /** The public keys as JWKs, newest first. */
  async published(ds: DataSource, tokenKey: string): Promise<JWK[]> {
    return (await this.keys(ds, tokenKey)).map((k) => k.publicJwk).reverse();
  }

  /**
   * The newest key, made usable by `use` (decrypted and imported) once per kid. Keys are re-read every
   * `refreshMs`, so a rotation by another process is picked up; one load at a time, so concurrent
   * deliveries share it (and never generate two first keys).
   */
  newest<T>(ds: DataSource, tokenKey: string, use: (key: K) => T | Promise<T>, refreshMs: number): () => Promise<{ kid: string; key: T }> {
    let current: { kid: string; key: T; loadedAt: number } | undefined;
    let loading: Promise<{ kid: string; key: T }> | undefined;
    const load = async () => {
      const keys = await this.keys(ds, tokenKey);
      const newest = keys[keys.length - 1];
      if (current?.kid !== newest.kid) current = { kid: newest.kid, key: await use(newest), loadedAt: Date.now() };
      else current.loadedAt = Date.now();
      return current;
    };
    return () => {
      if (current && Date.now() - current.loadedAt < refreshMs) return Promise.resolve(current);
      loading ??= load().finally(() => (loading = undefined));
      return loading;
    };
  }
}
