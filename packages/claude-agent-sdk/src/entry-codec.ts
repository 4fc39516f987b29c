import { checkBytes, MIRROR_LIMITS, mirrorUuidKey, ValidationError } from "@palimpsest/core";
import type { MirrorEntryInput } from "@palimpsest/store";

/** How deep an entry may nest before it is refused (far beyond any transcript line; JSON.stringify recurses). */
const MAX_ENTRY_DEPTH = 512;

/**
 * Checks a batch and serializes each entry once, verbatim: every entry must be a plain JSON object with
 * a string `type` (and a string `uuid` when it has one), made only of what JSON keeps as it is (objects,
 * arrays, strings, finite numbers, booleans, null; an `undefined` property is dropped, as JSON does).
 * A cycle, a BigInt, a function, a symbol, a non-finite number, a class instance, a uuid over
 * MIRROR_LIMITS.uuid bytes (as the mirror keys it: mirrorUuidKey): ValidationError naming the entry and
 * the path, before anything of the batch is stored. Strings are content, whatever they hold (NUL bytes,
 * lone surrogates: JSON escapes them and gives them back).
 */
export function encodeEntries(entries: unknown): MirrorEntryInput[] {
  if (!Array.isArray(entries)) throw invalid("entries", "the entries of an append must be an array");
  return entries.map((entry, i) => encodeEntry(entry, `entries[${i}]`));
}

function encodeEntry(entry: unknown, path: string): MirrorEntryInput {
  if (!isPlainObject(entry)) throw invalid(path, "an entry must be a JSON object");
  if (typeof entry.type !== "string") throw invalid(`${path}.type`, "an entry needs a string type");
  if (entry.uuid !== undefined && typeof entry.uuid !== "string") {
    throw invalid(`${path}.uuid`, "an entry's uuid must be a string");
  }
  checkJsonSafe(entry, path, new Set(), 0);
  const uuid = entry.uuid === undefined ? undefined : mirrorUuidKey(entry.uuid);
  if (uuid !== undefined) checkBytes(uuid, MIRROR_LIMITS.uuid, `${path}.uuid`);
  return { text: JSON.stringify(entry), uuid };
}

function checkJsonSafe(value: unknown, path: string, ancestors: Set<object>, depth: number): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw invalid(path, `${value} is not a JSON number`);
      return;
    case "object":
      break;
    default:
      throw invalid(path, `a ${typeof value} is not JSON`);
  }
  if (value === null) return;
  if (depth >= MAX_ENTRY_DEPTH) throw invalid(path, `nested deeper than ${MAX_ENTRY_DEPTH} levels`);
  if (ancestors.has(value)) throw invalid(path, "a cycle is not JSON");
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      // A hole (forEach skips it) or an undefined item: JSON would make it null, so load would differ.
      if (!(i in value) || value[i] === undefined)
        throw invalid(`${path}[${i}]`, "an array hole or undefined is not JSON");
      checkJsonSafe(value[i], `${path}[${i}]`, ancestors, depth + 1);
    }
  } else {
    if (!isPlainObject(value)) throw invalid(path, "only plain objects and arrays are JSON (not a class instance)");
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) checkJsonSafe(v, `${path}.${k}`, ancestors, depth + 1);
    }
  }
  ancestors.delete(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path}: ${message}`, [`${path}: ${message}`], { path });
}
