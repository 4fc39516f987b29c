import { retryAfterMs } from "@palimpsest/summarizers";
import { describe, expect, it } from "vitest";

describe("retryAfterMs", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "1.5" }))).toBe(1_500);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:09 GMT" }), now)).toBe(9_000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
