/**
 * A stored event as read back from the log, before its data is validated and upcast. `seq` is gapless
 * per session, from 1.
 */
export interface RawStoredEvent {
  eventId: string;
  sessionId: string;
  seq: number;
  position: number;
  type: string;
  schemaVersion: number;
  /** When it happened: the source's own time for imported events, otherwise when it was written. */
  occurredAt: string;
  /** When the store wrote it (absent only on events built outside a store). */
  recordedAt?: string;
  causationId?: string;
  correlationId?: string;
  idempotencyKey?: string;
  tenantId: string;
  data: unknown;
}

/** Metadata a writer may attach to the events of one append. */
export interface EventMetadata {
  causationId?: string;
  correlationId?: string;
}
