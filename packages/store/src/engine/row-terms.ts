import { type DomainEvent, indexedTerms } from "@palimpsest/core";
import type { IndexedEvent, TermsRow } from "./dialect.ts";
import { SEALED_FIELD } from "./row-mapping.ts";

/**
 * What the search index keeps for an events row: its message's terms (core's indexedTerms of the data as
 * stored, as the append computed them), or undefined for a row that has none: another kind of event, a
 * message without terms, an encrypted store's sealed data, an erased message's skeleton.
 */
export function rowTerms(row: TermsRow): IndexedEvent | undefined {
  if (row.type !== "message.appended") return undefined;
  const data = (typeof row.data === "string" ? JSON.parse(row.data) : row.data) as Record<string, unknown>;
  if (SEALED_FIELD in data) return undefined;
  const terms = indexedTerms({ type: "message.appended", data } as DomainEvent);
  return terms === null ? undefined : { sessionId: row.session_id, position: Number(row.position), terms };
}
