import { checkId, IdSchema, isPalimpsestError, MAX_JSON_DEPTH } from "@palimpsest/core";
import { withinJsonDepth } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

describe("IdSchema", () => {
  it("takes any well-formed text, surrogate pairs and SQL metacharacters included", () => {
    for (const id of [
      "a",
      "👩🏽‍💻",
      "\uD83D\uDE00",
      "'; DROP TABLE events; --",
      '%_\\"',
      "\uFFFD",
      "x".repeat(10_000),
    ]) {
      expect(IdSchema.safeParse(id).success, id).toBe(true);
    }
  });

  it("refuses empty text, NUL, lone or reversed surrogates and non-strings; checkId names the field", () => {
    for (const id of ["", "\u0000", "a\uD800", "\uDBFFz", "\uDC00", "\uDC00\uD800", 42, null]) {
      expect(IdSchema.safeParse(id).success, String(id)).toBe(false);
      let caught: unknown;
      try {
        checkId(id, "turnId");
      } catch (error) {
        caught = error;
      }
      expect(isPalimpsestError(caught, "VALIDATION")).toBe(true);
      expect((caught as { details: { path?: string } }).details.path).toBe("turnId");
    }
  });
});

describe("withinJsonDepth", () => {
  /** Arrays nested `depth` deep. */
  const nested = (depth: number): unknown => {
    let value: unknown = [];
    for (let i = 1; i < depth; i++) value = [value];
    return value;
  };

  it("takes values up to MAX_JSON_DEPTH levels, refuses one level more, and refuses cycles", () => {
    expect(withinJsonDepth("text")).toBe(true);
    expect(withinJsonDepth(nested(MAX_JSON_DEPTH))).toBe(true);
    expect(withinJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(false);
    expect(withinJsonDepth(nested(100_000))).toBe(false);
    const cycle: { self?: unknown } = {};
    cycle.self = [cycle];
    expect(withinJsonDepth(cycle)).toBe(false);
  });

  it("walks a shared subtree once per depth, not once per path (2^60 paths here)", () => {
    let node: unknown = {};
    for (let i = 1; i < 60; i++) node = { left: node, right: node };
    expect(withinJsonDepth(node)).toBe(true);
  });
});
