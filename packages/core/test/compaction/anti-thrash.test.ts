import {
  ANTI_THRASH_SHAPE,
  checkOptions,
  DEFAULT_ANTI_THRASH,
  resolveAntiThrash,
  summaryPolicy,
  type ValidationError,
} from "@palimpsest/core";
import { assessBackoff, type BackoffInput } from "@palimpsest/core/testing";
import { assistantMessage, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { live, policyInput, system } from "./view-builders.ts";

const THRESHOLD = 100_000;
const base: BackoffInput = { compactions: [], failures: [], now: 1_000_000, liveTokens: 100_000, threshold: THRESHOLD };
const ineffective = (at: number) => ({ tokensBefore: 100_000, tokensAfter: 95_000, at });
const effective = (at: number) => ({ tokensBefore: 100_000, tokensAfter: 40_000, at });

describe("anti-thrash: ineffective compactions", () => {
  it("given no history, then nothing is blocked", () => {
    expect(assessBackoff(base)).toEqual({ blocks: "nothing" });
  });

  it("given one ineffective compaction, then nothing is blocked yet", () => {
    expect(assessBackoff({ ...base, compactions: [ineffective(1)] }).blocks).toBe("nothing");
  });

  it("given two ineffective compactions in a row, then every compaction backs off until the view regrows by 25% of the threshold", () => {
    const input = { ...base, compactions: [effective(1), ineffective(2), ineffective(3)], liveTokens: 96_000 };
    expect(assessBackoff(input)).toMatchObject({ blocks: "all", resumeAtTokens: 120_000 });
    expect(assessBackoff({ ...input, liveTokens: 120_000 }).blocks).toBe("nothing");
  });

  it("given an effective compaction between the ineffective ones, then the breaker does not trip", () => {
    expect(assessBackoff({ ...base, compactions: [ineffective(1), effective(2), ineffective(3)] }).blocks).toBe(
      "nothing",
    );
  });

  it("given a configurable floor and regrowth, then they are used", () => {
    const config = {
      ineffectiveRatio: 0.01,
      strikes: 2,
      regrowthRatio: 0.5,
      timeoutCooldownsMs: [1],
      cooldownMs: { "rate-limited": 1, empty: 1, truncated: 1, malformed: 1, refused: 1, other: 1 },
    };
    expect(assessBackoff({ ...base, compactions: [ineffective(1), ineffective(2)] }, config).blocks).toBe("nothing");
    const tiny = { tokensBefore: 100_000, tokensAfter: 99_500, at: 3 };
    expect(assessBackoff({ ...base, compactions: [tiny, tiny] }, config)).toMatchObject({ resumeAtTokens: 149_500 });
  });
});

describe("anti-thrash: cooldowns after a failed summary, by reason", () => {
  const failedAt = base.now - 1_000;
  const verdict = (failures: BackoffInput["failures"], now = base.now, configKey?: string) =>
    assessBackoff(configKey === undefined ? { ...base, failures, now } : { ...base, failures, now, configKey });

  it("given timeouts in a row, then the cooldown grows 60 s, 300 s, 900 s", () => {
    const timeout = (at: number) => ({ reason: "timeout" as const, at });
    expect(verdict([timeout(failedAt)])).toMatchObject({ blocks: "summary", retryAt: failedAt + 60_000 });
    expect(verdict([timeout(1), timeout(failedAt)])).toMatchObject({ retryAt: failedAt + 300_000 });
    expect(verdict([timeout(1), timeout(2), timeout(3), timeout(failedAt)])).toMatchObject({
      retryAt: failedAt + 900_000,
    });
    expect(verdict([timeout(failedAt)], failedAt + 60_000).blocks).toBe("nothing");
  });

  it("given a rate limit with retry-after, then that is honoured; without it, the default", () => {
    expect(verdict([{ reason: "rate-limited", at: failedAt, retryAfterMs: 7_000 }])).toMatchObject({
      retryAt: failedAt + 7_000,
    });
    expect(verdict([{ reason: "rate-limited", at: failedAt }])).toMatchObject({ retryAt: failedAt + 60_000 });
  });

  it("given an auth failure, then summaries stop until the summarizer configuration changes, however long it has been", () => {
    const auth = [{ reason: "auth" as const, at: 1, configKey: "model-a" }];
    expect(verdict(auth, base.now * 10, "model-a")).toMatchObject({ blocks: "summary" });
    expect(verdict(auth, base.now, "model-b").blocks).toBe("nothing");
  });

  it.each([
    ["empty", 60_000],
    ["truncated", 60_000],
    ["refused", 300_000],
    ["other", 30_000],
  ] as const)("given a %s failure, then summaries wait %i ms", (reason, cooldown) => {
    expect(verdict([{ reason, at: failedAt }])).toMatchObject({ blocks: "summary", retryAt: failedAt + cooldown });
  });

  it("given a compaction succeeded after the failure, then the failure no longer counts", () => {
    const input = {
      ...base,
      failures: [{ reason: "refused" as const, at: failedAt }],
      compactions: [effective(failedAt + 1)],
    };
    expect(assessBackoff(input).blocks).toBe("nothing");
  });
});

describe("anti-thrash in the planners", () => {
  const view = [
    live(system("sys"), 100),
    ...Array.from({ length: 10 }, (_, i) =>
      live(i % 2 === 0 ? userMessage(`u${i}`, "q") : assistantMessage(`a${i}`, "r"), 12_000),
    ),
  ];
  const stalled = (at: number) => ({ tokensBefore: 118_000, tokensAfter: 115_000, at });
  const history = { compactions: [stalled(1), stalled(2)], failures: [], now: 3 };

  it("given the breaker tripped, when not forced, then the summary policy returns no plan with the reason", () => {
    const plan = summaryPolicy().plan(policyInput(view, { history }));
    expect(plan.kind).toBe("none");
    expect(plan.reason).toContain("backing off");
  });

  it("given the breaker tripped, when forced, then it plans anyway", () => {
    expect(summaryPolicy().plan(policyInput(view, { history, force: true })).kind).toBe("summary");
  });
});

describe("anti-thrash settings", () => {
  it("a partial setting keeps every other field's default, each cooldown included", () => {
    const config = resolveAntiThrash({ strikes: 4, cooldownMs: { refused: 5_000 } });
    expect(config).toEqual({
      ...DEFAULT_ANTI_THRASH,
      strikes: 4,
      cooldownMs: { ...DEFAULT_ANTI_THRASH.cooldownMs, refused: 5_000 },
    });
  });

  it("the settings' schema refuses a wrong value or an unknown key at its path", () => {
    const refusals: [unknown, string][] = [
      [{ strikes: "x" }, "strikes"],
      [{ ineffectiveRatio: -4 }, "ineffectiveRatio"],
      [{ timeoutCooldownsMs: "60000" }, "timeoutCooldownsMs"],
      [{ cooldownMs: { refused: -1 } }, "cooldownMs.refused"],
      [{ bogus: 1 }, "bogus"],
      [{ cooldownMs: { refusd: 1 } }, "cooldownMs.refusd"],
    ];
    for (const [settings, path] of refusals) {
      const error = (() => {
        try {
          checkOptions("antiThrash", settings, ANTI_THRASH_SHAPE);
        } catch (e) {
          return e as ValidationError;
        }
        throw new Error(`${path}: accepted`);
      })();
      expect(error.code, path).toBe("VALIDATION");
      expect(error.details, path).toMatchObject({ path });
    }
  });
});
