import {
  checkId,
  indexedTerms,
  type MessageSearchHit,
  type MessageSearchQuery,
  SEARCH_TERM,
  SEARCH_TERM_LENGTH,
  type StoredEvent,
  ValidationError,
} from "@palimpsest/core";

/** Most hits one search returns. */
export const MAX_SEARCH_HITS = 200;
/** Most sessions one search covers (a session and its lineage). */
export const MAX_SEARCH_SESSIONS = 1_000;
/** Most terms one search matches. */
export const MAX_SEARCH_TERMS = 64;

/** A search query checked (a ValidationError naming what is wrong), its offset defaulted. */
export function checkSearchQuery(query: MessageSearchQuery): Required<MessageSearchQuery> {
  if (typeof query !== "object" || query === null) {
    throw new ValidationError("searchMessages takes a query object", ["query: not an object"]);
  }
  const { sessionIds, terms, limit, offset = 0 } = query;
  if (!Array.isArray(sessionIds) || sessionIds.length === 0 || sessionIds.length > MAX_SEARCH_SESSIONS) {
    throw new ValidationError(`a search covers 1 to ${MAX_SEARCH_SESSIONS} sessions`, ["sessionIds: bad count"], {
      path: "sessionIds",
    });
  }
  for (const [i, id] of sessionIds.entries()) checkId(id, `sessionIds[${i}]`);
  if (!Array.isArray(terms) || terms.length === 0 || terms.length > MAX_SEARCH_TERMS) {
    throw new ValidationError(
      `a search matches 1 to ${MAX_SEARCH_TERMS} terms (searchTerms of its text)`,
      ["terms: bad count"],
      {
        path: "terms",
      },
    );
  }
  for (const [i, term] of terms.entries()) {
    // As core's searchTerms makes them (lower-cased; a letter without a lower-case form stays as it is).
    if (typeof term !== "string" || term.length > SEARCH_TERM_LENGTH || !SEARCH_TERM.test(term)) {
      throw new ValidationError(
        `terms[${i}] is not a search term: up to ${SEARCH_TERM_LENGTH} letters and digits, joined by single . _ or - (core's searchTerms makes them)`,
        [`terms.${i}: ${String(term).slice(0, 40)}`],
        { path: `terms.${i}` },
      );
    }
  }
  for (const [name, value, min, max] of [
    ["limit", limit, 1, MAX_SEARCH_HITS],
    ["offset", offset, 0, Number.MAX_SAFE_INTEGER],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new ValidationError(
        `a search's ${name} must be a whole number from ${min} to ${max}`,
        [`${name}: ${String(value)}`],
        {
          path: name,
        },
      );
    }
  }
  return { sessionIds, terms, limit, offset };
}

/**
 * A search without an index: the messages of `events` holding any of `terms`, ranked by how many they
 * hold, then newest first, the page `offset`..`offset + limit`. The memory store searches so, and an
 * encrypting store, which keeps no index, over the events it opened.
 */
export function scanForTerms(
  events: Iterable<StoredEvent>,
  { terms, limit, offset }: Pick<Required<MessageSearchQuery>, "terms" | "limit" | "offset">,
): MessageSearchHit[] {
  const hits: MessageSearchHit[] = [];
  for (const event of events) {
    if (event.type !== "message.appended") continue;
    const held = new Set(indexedTerms(event)?.split(" "));
    const rank = terms.filter((term) => held.has(term)).length;
    if (rank > 0) hits.push({ event, rank });
  }
  hits.sort((a, b) => b.rank - a.rank || b.event.position - a.event.position);
  return hits.slice(offset, offset + limit);
}
