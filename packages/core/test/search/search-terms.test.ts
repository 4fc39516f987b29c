import { indexedTerms, SEARCH_TERM, searchTerms } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

describe("searchTerms", () => {
  it("gives each compound whole, then its words, lower-cased, distinct, in the order they first appear", () => {
    expect(searchTerms("Upgrade to ~> 3.16 in mix.exs: ERR_QUOKKA_7731, then claude-sonnet-4 (3.16 again)")).toEqual([
      "upgrade",
      "to",
      "3.16",
      "3",
      "16",
      "in",
      "mix.exs",
      "mix",
      "exs",
      "err_quokka_7731",
      "err",
      "quokka",
      "7731",
      "then",
      "claude-sonnet-4",
      "claude",
      "sonnet",
      "4",
      "again",
    ]);
  });

  it("joins words by one connector only: leading, trailing and doubled ones separate", () => {
    expect(searchTerms("--flag a..b x.ts. _private ./src/app.ts")).toEqual([
      "flag",
      "a",
      "b",
      "x.ts",
      "x",
      "ts",
      "private",
      "src",
      "app.ts",
      "app",
    ]);
  });

  it("follows a number with its unit attached by the number and the unit, so `16ms` and `16 ms` share terms", () => {
    expect(searchTerms("took 16ms, then 0.7Seconds at 3x")).toEqual([
      "took",
      "16ms",
      "16",
      "ms",
      "then",
      "0.7seconds",
      "0.7",
      "seconds",
      "0",
      "7seconds",
      "7",
      "at",
      "3x",
      "3",
      "x",
    ]);
    // Not a number with a unit: letters first, or digits after the letters (versions, hashes, hex).
    expect(searchTerms("v2 sha256 8463c716 0x1f 1e10")).toEqual(["v2", "sha256", "8463c716", "0x1f", "1e10"]);
    expect(searchTerms("16ms 16 ms", 2)).toEqual(["16ms", "16"]);
  });

  it("keeps a dotfile's or dot-folder's leading dot, whole before its words; a dot after a word or dot is none", () => {
    expect(searchTerms("ls .beads/ .env.local ~/.claude a..b ./src x.env")).toEqual([
      "ls",
      ".beads",
      "beads",
      ".env.local",
      "env",
      "local",
      ".claude",
      "claude",
      "a",
      "b",
      "src",
      "x.env",
      "x",
    ]);
    for (const term of [".beads", ".env.local"]) expect(term).toMatch(SEARCH_TERM);
    for (const bad of ["..env", ".", "./x"]) expect(bad).not.toMatch(SEARCH_TERM);
  });

  it("drops a compound or word over 64 characters but keeps the words of a long compound", () => {
    const long = `${"a".repeat(40)}.${"b".repeat(40)}`;
    expect(searchTerms(long)).toEqual(["a".repeat(40), "b".repeat(40)]);
    expect(searchTerms(`${"x".repeat(65)} ok`)).toEqual(["ok"]);
  });

  it("stops at the limit, counting compounds and words alike", () => {
    expect(searchTerms("a.b c d", 3)).toEqual(["a.b", "a", "b"]);
  });

  it("makes only terms SEARCH_TERM accepts, of letters and digits in any script", () => {
    const terms = searchTerms("résumé 東京 ℝ-space v2.0-rc1 \"quoted\" NEAR(x) 'a'");
    expect(terms).toContain("v2.0-rc1");
    expect(terms).toContain("ℝ-space");
    for (const term of terms) expect(term, term).toMatch(SEARCH_TERM);
    for (const bad of ["a b", "a..b", "..a", "a-", 'q"', "x*"]) expect(bad).not.toMatch(SEARCH_TERM);
  });

  it("indexes a message's text, tool calls and name; an event that is no message has none", () => {
    const message = {
      id: "m",
      role: "assistant" as const,
      name: "planner",
      content: [{ type: "text" as const, text: "Reading app.ts" }],
      toolCalls: [{ id: "c", name: "read_file", arguments: '{"path":"src/app.ts"}' }],
    };
    expect(indexedTerms({ type: "message.appended", data: { message, tokens: 1 } })).toBe(
      "planner reading app.ts app ts read_file read file path src",
    );
    expect(indexedTerms({ type: "turn.completed", data: { turnId: "t" } } as never)).toBeNull();
  });
});
