import { z } from "zod";
import { IdSchema } from "../input/id-schema.ts";

/** The stored envelope around every event's data. `seq` is gapless per session, from 1. */
export const EnvelopeSchema = z.object({
  eventId: z.string().min(1),
  sessionId: IdSchema,
  seq: z.number().int().positive(),
  position: z.number().int().nonnegative(),
  type: z.string().min(1),
  schemaVersion: z.number().int().positive(),
  /** When it happened: the source's own time for imported events, otherwise when it was written. */
  occurredAt: z.string().min(1),
  /** When the store wrote it (absent only on events built outside a store). */
  recordedAt: z.string().min(1).optional(),
  causationId: IdSchema.optional(),
  correlationId: IdSchema.optional(),
  idempotencyKey: IdSchema.optional(),
  tenantId: IdSchema,
  data: z.unknown(),
});

/** A stored event as read back from the log, before its data is validated and upcast. */
export type RawStoredEvent = z.infer<typeof EnvelopeSchema>;

/** Metadata a writer may attach to the events of one append. */
export interface EventMetadata {
  causationId?: string;
  correlationId?: string;
}
