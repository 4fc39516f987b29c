import { isWellFormedId } from "../input/id-schema.ts";

/** Marks a uuid stored JSON-escaped (nothing stored as it is starts with it). */
const ESCAPED = "\u0001";

/**
 * The uuid as the mirror keys it: as it is, unless it holds what a text column cannot keep (NUL, which
 * PostgreSQL refuses; a lone surrogate, which both engines turn into U+FFFD, making two uuids one) or
 * starts with the marker: then the marker and its JSON text. One uuid, one key, never two uuids one key.
 */
export function mirrorUuidKey(uuid: string): string {
  return uuid.startsWith(ESCAPED) || !isWellFormedId(uuid) ? `${ESCAPED}${JSON.stringify(uuid)}` : uuid;
}

/** The uuid a key made by mirrorUuidKey stands for. */
export function uuidOfMirrorKey(key: string): string {
  return key.startsWith(ESCAPED) ? (JSON.parse(key.slice(ESCAPED.length)) as string) : key;
}
