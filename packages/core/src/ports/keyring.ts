/** Which session a data key is for: the tenant and the session id (a key never serves two sessions). */
export interface SessionKeyRef {
  readonly tenant: string;
  readonly sessionId: string;
}

/**
 * Where each session's data key lives, outside the database that holds the content it encrypts (see
 * docs/encryption.md). A store opened with a keyring encrypts every session's content under the session's
 * own data key, and an erasure destroys that key: every copy of the content (the WAL, a replica, a backup
 * taken before the erasure) is unreadable from then on. So the keyring must not keep its keys in the same
 * database, nor in backups kept as long as the database's: a key a backup still holds is not destroyed.
 * In production, a key service or a small key table elsewhere, each key wrapped by a key held in a KMS;
 * in tests and on one machine, the store's openLocalKeyring.
 */
export interface Keyring {
  /**
   * The session's data key (32 bytes). When it has none: with `create`, a new random one, kept before it
   * is returned (two processes creating one at once both get the one kept); without, undefined (never
   * made, or destroyed).
   */
  dataKey(ref: SessionKeyRef, create: boolean): Promise<Uint8Array | undefined>;
  /** Destroys the session's data key for good; nothing when it has none. */
  destroyKey(ref: SessionKeyRef): Promise<void>;
}
