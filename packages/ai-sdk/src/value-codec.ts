import { setOwn, ValidationError } from "@palimpsest/core";

/**
 * The key that marks a tag-encoded value in stored metadata: `{ $aiSdk: "bytes", base64 }` for a
 * Uint8Array (a Buffer too), `{ $aiSdk: "arraybuffer", base64 }`, `{ $aiSdk: "url", href }` for a URL.
 * Input holding an object with this key of its own is refused, so a decode never misreads caller data.
 */
export const TAG_KEY = "$aiSdk";

/**
 * The JSON form of a ModelMessage value: Uint8Array, ArrayBuffer and URL values tag-encoded, keys whose
 * value is `undefined` left out (as JSON does), every other own key kept (`__proto__` included, as data).
 * Anything else JSON cannot hold (a Date, a Map, a class instance, a function, a bigint, a non-finite
 * number) is ValidationError at its path.
 */
export function encodeValue(value: unknown, path: string): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isFinite(value)) return value;
    throw refused(path, `the number ${value}`);
  }
  if (value instanceof Uint8Array) return { [TAG_KEY]: "bytes", base64: Buffer.from(value).toString("base64") };
  if (value instanceof ArrayBuffer) {
    return { [TAG_KEY]: "arraybuffer", base64: Buffer.from(value).toString("base64") };
  }
  if (value instanceof URL) return { [TAG_KEY]: "url", href: value.href };
  if (Array.isArray(value)) return value.map((item, i) => encodeValue(item, `${path}[${i}]`));
  if (typeof value === "object") {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw refused(path, `a ${prototype?.constructor?.name ?? "non-plain"} object`);
    }
    if (Object.hasOwn(value, TAG_KEY)) throw refused(`${path}.${TAG_KEY}`, `the reserved key ${TAG_KEY}`);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) setOwn(out, key, encodeValue(item, `${path}.${key}`));
    }
    return out;
  }
  if (value === undefined) return value;
  throw refused(path, `a ${typeof value}`);
}

/** The value encodeValue stored: its tagged Uint8Array, ArrayBuffer and URL values rebuilt, own keys as stored. */
export function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const tag = record[TAG_KEY];
  if (tag === "bytes") return new Uint8Array(Buffer.from(String(record.base64), "base64"));
  if (tag === "arraybuffer") {
    const bytes = Buffer.from(String(record.base64), "base64");
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }
  if (tag === "url") return new URL(String(record.href));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) setOwn(out, key, decodeValue(item));
  return out;
}

function refused(path: string, what: string): ValidationError {
  return new ValidationError(`a ModelMessage value at ${path} cannot be stored: ${what}`, [`${path}: ${what}`], {
    path,
  });
}
