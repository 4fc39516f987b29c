/** A JSON object as parsed: every field unknown until checked. */
export type JsonObject = Record<string, unknown>;

/** True for a non-null, non-array object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `text` parsed, when it is one JSON document holding an object; undefined for anything else. */
export function parseJsonObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
