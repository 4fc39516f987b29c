/**
 * The key JSON keeps as an own property (`JSON.parse('{"__proto__": 1}')` has it) but assignment does
 * not: `out["__proto__"] = value` sets `out`'s prototype instead, so a copy made by assignment loses it.
 */
export const PROTO_KEY = "__proto__";

/**
 * Sets `key` on `target` as an own, enumerable data property, `__proto__` included (defined, not assigned:
 * the prototype is never touched), as JSON.parse and object spread do.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === PROTO_KEY)
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** True for a plain object (its prototype Object.prototype or null): what JSON makes of an object. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
