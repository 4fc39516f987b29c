import { definedFields } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

describe("definedFields", () => {
  it("drops the keys whose value is undefined and keeps every other value, falsy ones included", () => {
    const fields = { a: 1, b: undefined, c: null, d: 0, e: "", f: false };
    const out = definedFields(fields);
    expect(out).toStrictEqual({ a: 1, c: null, d: 0, e: "", f: false });
    expect("b" in out).toBe(false);
    expect(fields).toHaveProperty("b");
  });

  it("spreads over defaults without erasing them", () => {
    const defaults = { debounceMs: 2_000, concurrency: 2 };
    const given: { debounceMs?: number | undefined; concurrency?: number } = { debounceMs: undefined, concurrency: 4 };
    expect({ ...defaults, ...definedFields(given) }).toStrictEqual({ debounceMs: 2_000, concurrency: 4 });
  });
});
