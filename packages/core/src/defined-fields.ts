/**
 * A copy of `fields` without the keys whose value is `undefined`: what `exactOptionalPropertyTypes`, JSON
 * and spreads over defaults need (a present `undefined` would overwrite a default or fail a strict schema).
 */
export function definedFields<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
