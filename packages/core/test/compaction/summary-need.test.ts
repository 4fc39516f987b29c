import { type LiveEntry, OfflineSummarizer } from "@palimpsest/core";
import { ANTHROPIC_PROFILE, decideCompaction, estimateTokens, summaryNeed } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { callTools, live, output, policyInput, system } from "./view-builders.ts";

const request = (id: string, text: string, tokens: number): LiveEntry =>
  live({ id, role: "user", content: [{ type: "text", text }] }, tokens);
const summaryEntry = (id: string, tokens: number): LiveEntry =>
  live({ id, role: "user", content: [{ type: "text", text: `summary ${id}` }] }, tokens, {
    compactionId: `c-${id}`,
    kind: "summary",
  });
const shell = (id: string, command: string): LiveEntry =>
  live(callTools(id, [[`${id}.c`, "bash", JSON.stringify({ command })]]), 40);

describe("what a summary must hold to keep every fact of its span", () => {
  it("counts each request whole, each other item once, by their length, and an update's earlier summaries by their tokens", () => {
    const span = [
      request("u1", "Make the build pass", 300),
      shell("a1", "npm run build"),
      live(output("r1", "a1.c", "TypeError: x is undefined\nbuilt in 12.5s"), 900),
      shell("a2", "npm run build"),
      live(output("r2", "a2.c", "TypeError again, built in 12.5s"), 900),
    ];
    const need = summaryNeed(span);
    // The request, one command, one error name, one number (the repeats count once).
    expect(need.items).toBe(4);
    // The request is written whole, never cut: by its text's length, whatever its message counted.
    const longer = "Make the build pass, then run every test again";
    const grown = summaryNeed([request("u1", longer, 300), ...span.slice(1)]);
    expect(grown.hardTokens - need.hardTokens).toBe(estimateTokens(longer) - estimateTokens("Make the build pass"));
    expect(grown.tokens - need.tokens).toBe(grown.hardTokens - need.hardTokens);
    expect(need.tokens).toBeGreaterThan(need.hardTokens);
    expect(need.tokens).toBeLessThan(need.hardTokens + 400);
    expect(need.earlierItems).toBe(0);
    const update = summaryNeed(span, [summaryEntry("s1", 2_000)]);
    // Its recovery line says it supersedes an earlier summary too; the earlier summary is counted whole.
    const also = update.hardTokens - need.hardTokens;
    expect(also).toBeGreaterThan(0);
    expect(also).toBeLessThanOrEqual(estimateTokens(" and 1 earlier summary") + 1);
    expect(update.tokens).toBe(need.tokens + also + 2_000);
    // The earlier summary's facts are counted by its size (about 15 tokens each), and said apart.
    expect(update.earlierItems).toBe(Math.round(2_000 / 15));
    expect(update.items).toBe(need.items + update.earlierItems);
  });

  it("says what a summary writes whatever its span's length: its frame and the earlier summaries it folds in", () => {
    const turn = (t: number): LiveEntry[] => [
      request(`u${t}`, `Make step ${t} of the build pass, then tell me what changed`, 20),
      shell(`a${t}`, `npm run build -- --step ${t}`),
      live(output(`r${t}`, `a${t}.c`, `TypeError: step ${t} is undefined\nbuilt in ${t}.5s`), 300),
    ];
    const short = summaryNeed([1, 2].flatMap(turn));
    const long = summaryNeed([1, 2, 3, 4, 5, 6].flatMap(turn));
    // The span's own requests and facts grow with it; the fixed part is the frame alone, under the need.
    expect(long.counted.tokens - short.counted.tokens).toBeGreaterThan(100);
    expect(short.counted.fixedTokens).toBeGreaterThan(0);
    expect(short.counted.fixedTokens).toBeLessThan(short.counted.hardTokens);
    expect(Math.abs(long.counted.fixedTokens - short.counted.fixedTokens)).toBeLessThan(10);
    // An update writes its earlier summaries again whatever the span: their counted tokens join the fixed
    // part, with the recovery line's words naming them.
    const update = summaryNeed([1, 2].flatMap(turn), [summaryEntry("s1", 2_000)]);
    expect(update.counted.fixedTokens - short.counted.fixedTokens - 2_000).toBeGreaterThan(0);
    expect(update.counted.fixedTokens - short.counted.fixedTokens - 2_000).toBeLessThanOrEqual(
      estimateTokens(" and 1 earlier summary") + 1,
    );
  });

  it("given an update, then the requests its earlier summaries hold are hard: summarizers keep them verbatim", async () => {
    const asked = ["Make the build pass", "Then run every test again and tell me which ones fail"];
    const { text } = await new OfflineSummarizer().summarize({
      messages: asked.map((t, i) => request(`q${i}`, t, 20).message),
      maxOutputTokens: 1,
    });
    const held = (tokens: number): LiveEntry =>
      live({ id: "s1", role: "user", content: [{ type: "text", text }] }, tokens, {
        compactionId: "c-s1",
        kind: "summary",
      });
    const span = [request("u1", "Now fix the parser", 30)];
    const need = (fresh: LiveEntry[]) => summaryNeed(fresh);
    const plain = summaryNeed(span, [summaryEntry("s1", 2_000)]);
    const update = summaryNeed(span, [held(2_000)]);
    // Each request the earlier summary holds counts as the span's do (its text and an item's frame), never dropped.
    const requests = asked.reduce((sum, t) => sum + estimateTokens(t) + 9, 0);
    expect(update.hardTokens - plain.hardTokens).toBe(requests);
    expect(update.tokens).toBe(plain.tokens);
    expect(update.requests).toBe(plain.requests + 2);
    // They are the earlier summary's items beside those estimated from the rest of its size.
    expect(update.earlierItems).toBe(Math.round((2_000 - requests) / 15));
    expect(update.items).toBe(update.earlierItems + need(span).items + 2);
    // A summary holds no more than its own size: counted at 10 tokens, its requests take at most those 10 in
    // the session's counted tokens; in the summarizer's units, their estimate (its text is longer than they).
    const small = summaryNeed(span, [held(10)]);
    const bare = summaryNeed(span, [summaryEntry("s1", 10)]);
    expect(small.hardTokens - bare.hardTokens).toBe(requests);
    expect(small.counted.hardTokens - bare.counted.hardTokens).toBeGreaterThan(0);
    expect(small.counted.hardTokens - bare.counted.hardTokens).toBeLessThanOrEqual(10);
  });

  it("reads a tool result knowing its call: a file read holds no error names or figures, a command's output does", () => {
    const text = "ValueError raised after 3.5s";
    const read = [
      live(callTools("a1", [["c1", "read_file", '{"path":"src/a.py"}']]), 40),
      live(output("r1", "c1", text), 50),
    ];
    const run = [shell("a2", "python run.py"), live(output("r2", "a2.c", text), 50)];
    // The read's path is one item; the command, the script it names, its error name and its number are four.
    expect(summaryNeed(read).items).toBe(1);
    expect(summaryNeed(run).items).toBe(4);
    // Asked again (the items of a message are kept), the answers are the same, in any span order.
    expect(summaryNeed([...run, ...read]).items).toBe(5);
    expect(summaryNeed(read).items).toBe(1);
  });

  it("does not keep what a tool result was read as without its call: the same result in a whole span is read again", () => {
    const call = live(callTools("a9", [["c9", "read_file", '{"path":"src/b.py"}']]), 40);
    const result = live(output("r9", "c9", "KeyError raised after 2.5s"), 50);
    // Alone, the result's call is unknown: its error name and number count.
    expect(summaryNeed([result]).items).toBe(2);
    // With its call, it is a file read: only the path counts.
    expect(summaryNeed([call, result]).items).toBe(1);
  });
});

describe("what the offline summary writes beside the items, counted by the functions that write it", () => {
  // A span whose text beside its items is long: two failed commands with long first lines of output (the
  // summary writes them after the command) and a long last assistant message (never dropped).
  const failure = (what: string) =>
    `could not start the analysis of ${what}: the persistent lookup table under _build/dev is missing or stale, rebuild it first\nsee the log`;
  const reply = `The analysis still does not start. ${"The lookup table is rebuilt from the dependencies, which takes a while on this machine, and the build folder is shared with the editor. ".repeat(12)}Next I will rebuild it.`;
  const span = [
    request("u1", "Find out why the analysis does not start", 20),
    shell("a1", "mix dialyzer --format short"),
    live(output("r1", "a1.c", failure("the project"), true), 60),
    shell("a2", "ls -la | grep dialyzer"),
    live(output("r2", "a2.c", "drwxr-xr-x  2 dev dev 4096 plt"), 30),
    shell("a3", "mix dialyzer --plt"),
    live(output("r3", "a3.c", failure("the dependencies"), true), 60),
    live({ id: "a4", role: "assistant", content: [{ type: "text", text: reply }] }, 600),
  ];
  const summarize = (maxOutputTokens: number) =>
    new OfflineSummarizer().summarize({ messages: span.map((e) => e.message), maxOutputTokens });

  it("given failed commands and a long last message, then at the need's budget the offline summary drops nothing", async () => {
    const need = summaryNeed(span);
    const { text } = await summarize(need.tokens);
    expect(text).toContain("nothing dropped");
    expect(text).toContain("`ls -la | grep dialyzer`");
    expect(estimateTokens(text)).toBeLessThanOrEqual(need.tokens);
  });

  it("given a budget nothing fits in, then what the offline summary still writes is the need's hard tokens", async () => {
    const need = summaryNeed(span);
    const { text } = await summarize(1);
    // The request, the shortened last message and the recovery lines stay; the budget line says it is over.
    expect(text).toContain("Last assistant message:");
    expect(text).not.toContain("`ls -la | grep dialyzer`");
    const over = estimateTokens(" (over: requests are never dropped)");
    expect(estimateTokens(text)).toBeLessThanOrEqual(need.hardTokens + over);
    expect(estimateTokens(text)).toBeGreaterThan(need.hardTokens - 10);
  });
});

/** A session of `turns` tool turns, each with a command of its own and an output naming `figures` numbers. */
function factView(turns: number, figures: number, outputTokens: number): LiveEntry[] {
  const view = [live(system("sys"), 500), request("u0", "Fix the tests", 50)];
  for (let t = 0; t < turns; t++) {
    const numbers = Array.from({ length: figures }, (_, i) => `${t}.${i}5s`).join(", ");
    view.push(shell(`a${t}`, `pytest tests/test_${t}.py -x`));
    view.push(live(output(`r${t}`, `a${t}.c`, `ran in ${numbers}`), outputTokens));
  }
  view.push(live({ id: "z", role: "assistant", content: [{ type: "text", text: "next" }] }, 20));
  return view;
}

describe("cost-optimal's decision with facts in the balance", () => {
  const MINUTE = 60_000;
  // Long, warm turns well under the threshold: carrying the span costs more than compacting it.
  const times = { nowMs: 100 * MINUTE, previousRequestMs: 100 * MINUTE - 30_000 };

  it("given a span whose facts fit the summary's cap, then it compacts early and gives the summary room for them all", () => {
    const input = policyInput(factView(60, 2, 900), { profile: ANTHROPIC_PROFILE, ...times });
    const decision = decideCompaction(input);
    expect(decision.due).toBe(false);
    expect(decision.compact).toBe(true);
    expect(decision.baseline).toBeUndefined();
    const chosen = decision.chosen;
    expect(chosen?.lostItems).toBe(0);
    expect(chosen?.plan.maxSummaryTokens).toBeGreaterThanOrEqual(chosen?.need.tokens ?? Number.POSITIVE_INFINITY);
  });

  it("given a span with more facts than the cap holds, then it waits unless the user prices a lost fact low enough", () => {
    const input = policyInput(factView(60, 60, 900), { profile: ANTHROPIC_PROFILE, ...times });
    const strict = decideCompaction(input);
    expect(strict.due).toBe(false);
    expect(strict.candidates.every((c) => c.lostItems > 0)).toBe(true);
    expect(strict.compact).toBe(false);
    expect(strict.reason).toMatch(/drop facts/);
    // Free facts: the same span is compacted early, dropping what the cap leaves out.
    const free = decideCompaction(input, { lostFactUsd: 0 });
    expect(free.compact).toBe(true);
    expect(free.baseline).toBeUndefined();
    expect(free.chosen?.lostItems).toBeGreaterThan(0);
    // Dear facts: waiting costs less than what the compaction would drop.
    expect(decideCompaction(input, { lostFactUsd: 10 }).compact).toBe(false);
  });

  it("given the threshold reached, then it compacts, its summary dropping facts only with summary's room and no more than summary's would", () => {
    const view = factView(100, 60, 900);
    const input = policyInput(view, { profile: ANTHROPIC_PROFILE, liveTokens: 120_000, ...times });
    const decision = decideCompaction(input);
    expect(decision.due).toBe(true);
    expect(decision.compact).toBe(true);
    const baseline = decision.baseline;
    expect(baseline?.lostItems).toBeGreaterThan(0);
    expect(decision.chosen?.plan.maxSummaryTokens).toBeGreaterThanOrEqual(baseline?.budget ?? Number.POSITIVE_INFINITY);
    expect(decision.chosen?.lostItems).toBeLessThanOrEqual((baseline?.lostItems ?? 0) + 1e-9);
  });

  it("given the threshold reached and a span of requests only, more than the cap holds, then it compacts: nothing it may drop is dropped", () => {
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const view = [live(system("sys"), 500)];
    for (let t = 0; t < 40; t++) {
      const text = `Request ${letters[t % 26]}${letters[Math.floor(t / 26)]}: ${"explain the design again ".repeat(50)}`;
      view.push(request(`u${t}`, text, 800));
      view.push(live({ id: `a${t}`, role: "assistant", content: [{ type: "text", text: "Sure." }] }, 2_200));
    }
    const decision = decideCompaction(policyInput(view, { profile: ANTHROPIC_PROFILE, liveTokens: 120_000, ...times }));
    expect(decision.candidates.every((c) => c.plan.maxSummaryTokens < c.need.hardTokens)).toBe(true);
    expect(decision.candidates.every((c) => c.lostItems === 0)).toBe(true);
    expect(decision.compact).toBe(true);
  });

  it("given the threshold reached and an earlier summary every update folds in, then its estimated facts do not let a bigger span drop more of its own", () => {
    // After a compaction: a 15,000-token summary (1,000 estimated facts) and 40 turns of 20 figures each.
    const view = [live(system("sys"), 500), summaryEntry("s0", 15_000), ...factView(40, 20, 900).slice(2)];
    const input = policyInput(view, { profile: ANTHROPIC_PROFILE, liveTokens: 120_000, compactions: 1, ...times });
    // The profile's tail and a tenth of it: the smaller tail leaves the bigger span, cheaper per turn.
    const decision = decideCompaction(input, { tailShares: [1, 0.1] });
    expect(decision.due).toBe(true);
    const baseline = decision.baseline;
    if (baseline === undefined) throw new Error("summary would compact here");
    expect(baseline.lostItems - baseline.lostFreshItems).toBeGreaterThan(500);
    // The trap: counting the earlier summary's facts in, summary's "no more" allows a bigger span at the
    // recall cap, the cheapest per turn, though it drops more of its span's own facts than summary's would.
    const byTotal = decision.candidates.filter(
      (c) => c.plan.maxSummaryTokens >= baseline.budget && c.lostItems <= baseline.lostItems + 1e-9,
    );
    const trap = byTotal.reduce((a, c) => (c.costPerTurn < a.costPerTurn ? c : a));
    expect(trap.lostFreshItems).toBeGreaterThan(baseline.lostFreshItems);
    // Compared on their span's facts only, it is refused: the chosen span is smaller and drops no more.
    expect(decision.compact).toBe(true);
    expect(decision.chosen?.lostFreshItems).toBeLessThanOrEqual(baseline.lostFreshItems + 1e-9);
    expect(decision.chosen?.tailBudget).toBeGreaterThan(trap.tailBudget);
  });
});
