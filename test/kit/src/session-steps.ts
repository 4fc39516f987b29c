import fc from "fast-check";

/**
 * One abstract step of a generated session. Steps carry only random choices; `commandForStep` turns a
 * step into a command that is valid against the current state, so any step sequence is a valid session.
 */
export type SessionStep =
  | { kind: "user"; text: string; tokens: number; order: number }
  | { kind: "assistant"; text: string; calls: number; tokens: number; order: number }
  | { kind: "results"; count: number; order: number; texts: string[]; tokens: number }
  | { kind: "turn"; withUsage: boolean }
  | { kind: "summary"; from: number; length: number; replace: boolean; tokens: number }
  | { kind: "prune"; picks: number[]; tokens: number }
  | { kind: "failure"; attempt: number };

/** Options for generated sessions. */
export interface SessionStepOptions {
  /** Most steps per session (default 40). */
  maxSteps?: number;
  /** Most parallel tool calls in one assistant message (default 4). */
  maxParallelCalls?: number;
  /** Largest token count a single message gets (default 2000). */
  maxTokens?: number;
}

/** Hand-picked awkward strings: astral emoji, ZWJ sequences, RTL, combining marks, NUL, CRLF, BOM. */
export const AWKWARD_TEXTS: readonly string[] = [
  "👩🏽‍💻 ship it 🚀",
  "עִבְרִית and العربية mixed ‮reversed‬",
  "e\u0301\u0302\u0303 Z̷̢͎a̸̱l̶̼g̵o̶",
  "nul\u0000inside",
  "line\r\nbreaks\n\ttabs",
  "\uFEFFbom first",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟘𝟙𝟚",
  "日本語のテキスト、句読点。",
  '{"json":"looking","but":"text"}',
  " ",
];

/** Text of any shape: graphemes, arbitrary code points (astral included), or an awkward sample. */
export function unicodeTextArb(maxLength = 60): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: "grapheme", maxLength }),
    fc.string({ unit: "binary", maxLength }),
    fc.constantFrom(...AWKWARD_TEXTS),
  );
}

/** One abstract session step, weighted toward conversation with occasional turns and compactions. */
export function sessionStepArb(options: SessionStepOptions = {}): fc.Arbitrary<SessionStep> {
  const maxTokens = options.maxTokens ?? 2000;
  const tokens = fc.nat({ max: maxTokens });
  const order = fc.nat();
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("user" as const), text: unicodeTextArb(), tokens, order }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("assistant" as const),
        text: unicodeTextArb(),
        calls: fc.nat({ max: options.maxParallelCalls ?? 4 }),
        tokens,
        order,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("results" as const),
        count: fc.nat(),
        order,
        texts: fc.array(unicodeTextArb(200), { minLength: 1, maxLength: 4 }),
        tokens,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("turn" as const), withUsage: fc.boolean() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("summary" as const),
        from: fc.nat(),
        length: fc.nat(),
        replace: fc.boolean(),
        tokens: fc.nat({ max: 500 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("prune" as const),
        picks: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        tokens: fc.nat({ max: 20 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("failure" as const), attempt: fc.integer({ min: 1, max: 3 }) }),
    },
  );
}

/** A sequence of abstract steps: the script of one generated session. */
export function sessionStepsArb(options: SessionStepOptions = {}): fc.Arbitrary<SessionStep[]> {
  return fc.array(sessionStepArb(options), { maxLength: options.maxSteps ?? 40 });
}
