import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compactRange, openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesColor } from "../../packages/cli/src/report-html/series-colors.ts";
import { jsonError, ROOT, runPalimpsest } from "./harness.ts";
import { colourPixels, HAVE_CHROMIUM, type OpenedPage, openInChromium, tableCells } from "./report-html-browser.ts";

const TITLE = `<b>bold</b> & "quoted" <script>window.__xss = 1</script>`;
const DEMO = join(ROOT, "examples/demo-session.jsonl");

/** Screenshots go here when REPORT_SCREENSHOT_DIR is set (to look at the page by eye). */
const SHOTS = process.env.REPORT_SCREENSHOT_DIR;

/** Everything the page must satisfy whatever it reports: rendered, chart sized, nothing logged, nothing fetched. */
async function expectRendered(opened: OpenedPage, heading: string): Promise<void> {
  const { page } = opened;
  expect(await page.locator("h1").textContent()).toContain(heading);
  const box = await page.locator("svg.prompt-chart").boundingBox();
  expect(box?.width ?? 0).toBeGreaterThan(100);
  expect(box?.height ?? 0).toBeGreaterThan(100);
  expect(await page.locator("svg.prompt-chart path.series-line").count()).toBeGreaterThan(0);
  expect(opened.consoleErrors).toEqual([]);
  expect(opened.pageErrors).toEqual([]);
  expect(opened.networkRequests).toEqual([]);
}

/** `document.querySelectorAll(selector).length` in the page (the count the issue asks for). */
const marks = (page: OpenedPage["page"], selector = ".compaction-mark"): Promise<number> =>
  page.evaluate(`document.querySelectorAll(${JSON.stringify(selector)}).length`);

/** The rows of the text table of `stdout` whose header row starts with `header` (cells split on 2+ spaces), header first. */
function textTable(stdout: string, header: readonly string[]): string[][] {
  const lines = stdout.split("\n").map((line) => line.trim().split(/\s{2,}/));
  const start = lines.findIndex((cells) => header.every((h, i) => cells[i] === h));
  expect(start).toBeGreaterThanOrEqual(0);
  const width = lines[start]?.length ?? 0;
  const end = lines.findIndex((cells, i) => i > start && cells.length !== width);
  return lines.slice(start, end === -1 ? undefined : end);
}

/** The column `name` of a table (header row first) as a map from its first column. */
function column(rows: readonly string[][], name: string): Map<string, string> {
  const index = rows[0]?.indexOf(name) ?? -1;
  expect(index).toBeGreaterThan(0);
  return new Map(rows.slice(1).map((row) => [row[0] ?? "", row[index] ?? ""]));
}

describe.skipIf(!HAVE_CHROMIUM)("HTML report in headless Chromium", () => {
  let dir: string;
  let db: string;
  let sessionId: string;
  let secondId: string;
  let compactions: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "palimpsest-report-html-"));
    db = join(dir, "palimpsest.db");
    const palimpsest = await openPalimpsest({ url: db });
    try {
      const session = await palimpsest.startSession({ title: TITLE, model: "claude-<i>x</i>", contextWindow: 200_000 });
      sessionId = session.id;
      for (let turn = 1; turn <= 12; turn++) {
        const turnId = `t${turn}`;
        await session.append({ role: "user", content: `step ${turn}: ${"context ".repeat(700)}` }, { turnId });
        await session.append({ role: "assistant", content: `done ${turn}` }, { turnId });
        const prompt = session.state.liveTokens + 3_000;
        await session.completeTurn(turnId, { promptTokens: prompt, cacheReadTokens: turn === 1 ? 0 : prompt - 900 });
        if (turn === 5 || turn === 10) {
          const live = session.view().messages;
          await compactRange(session, {
            fromId: live[1]?.id ?? "",
            toId: live.at(-3)?.id ?? "",
            summary: `summary ${turn}`,
          });
        }
      }
      const events = await palimpsest.store.readStream(session.id);
      compactions = events.filter((e) => e.type === "messages.superseded" && e.data.mode !== "trim").length;
      const second = await palimpsest.startSession({ title: "second session", contextWindow: 200_000 });
      secondId = second.id;
      for (let turn = 1; turn <= 8; turn++) {
        const turnId = `s${turn}`;
        await second.append({ role: "user", content: `other ${turn}: ${"detail ".repeat(400)}` }, { turnId });
        await second.append({ role: "assistant", content: `ok ${turn}` }, { turnId });
        const prompt = second.state.liveTokens + 1_500;
        await second.completeTurn(turnId, { promptTokens: prompt, cacheReadTokens: turn === 1 ? 0 : prompt - 400 });
      }
    } finally {
      await palimpsest.close();
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("report --html <session>: one mark per compaction, transcript strings shown as text", {
    timeout: 60_000,
  }, async () => {
    expect(compactions).toBe(2);
    const out = join(dir, "session.html");
    const result = await runPalimpsest(["--db", db, "report", "--html", out, sessionId.slice(0, 13)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote ${out}`);
    const opened = await openInChromium(out);
    try {
      await expectRendered(opened, TITLE);
      expect(await marks(opened.page)).toBe(compactions);
      expect(await marks(opened.page, '.compaction-mark[data-mode="summary"]')).toBe(compactions);
      expect(await opened.page.locator("h1 b, script").count()).toBe(0);
      expect(await opened.page.evaluate("typeof window.__xss")).toBe("undefined");
      expect(await opened.page.locator("svg.prompt-chart path.real-line").count()).toBe(1);
      if (SHOTS !== undefined)
        await opened.page.screenshot({ path: join(SHOTS, "report-session.png"), fullPage: true });
    } finally {
      await opened.close();
    }
  });

  it("replay --compare summary,micro+summary --html: the marks of each policy match the replay's compactions", {
    timeout: 120_000,
  }, async () => {
    const args = ["replay", DEMO, "--compare", "summary,micro+summary", "--context-window", "16000"];
    const table = await runPalimpsest(["--json", ...args]);
    expect(table.code).toBe(0);
    const expected = new Map(
      (JSON.parse(table.stdout) as { policy: string; compressionEvents: number }[]).map((p) => [
        p.policy,
        p.compressionEvents,
      ]),
    );
    expect(expected.get("summary")).toBeGreaterThanOrEqual(2); // a sawtooth, not a single drop
    expect(expected.get("micro+summary")).toBeGreaterThan(expected.get("summary") ?? 0);
    const out = join(dir, "replay.html");
    const result = await runPalimpsest(["--json", ...args, "--html", out]);
    expect(result.code).toBe(0);
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(JSON.parse(result.stdout)).toEqual({ html: out, series: 2, compactions: total });
    const opened = await openInChromium(out);
    try {
      await expectRendered(opened, "Replay of demo-session.jsonl");
      expect(await marks(opened.page)).toBe(total);
      for (const [policy, n] of expected) {
        expect(await marks(opened.page, `.compaction-mark[data-policy="${policy}"]`)).toBe(n);
      }
      expect(await marks(opened.page, '.compaction-mark[data-mode="micro"]')).toBeGreaterThan(0);
      expect(await opened.page.locator("table caption", { hasText: "Cache metrics per policy" }).count()).toBe(1);
      if (SHOTS !== undefined) await opened.page.screenshot({ path: join(SHOTS, "report-replay.png"), fullPage: true });
    } finally {
      await opened.close();
    }
  });

  it("report --html with two sessions: the telemetry table on stdout, each session's real prompt line in the chart", {
    timeout: 60_000,
  }, async () => {
    const out = join(dir, "two.html");
    const result = await runPalimpsest(["--db", db, "report", "--html", out, sessionId, secondId]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^2 passes across 1 sessions\n/); // the table `report <session…>` prints
    expect(result.stdout).toContain("net tokens saved");
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(`wrote ${out} (2 series, 2 compactions)`);
    const opened = await openInChromium(out);
    try {
      await expectRendered(opened, "2 sessions");
      const real = opened.page.locator("svg.prompt-chart path.real-line");
      expect(await real.evaluateAll((paths) => paths.map((p) => p.getAttribute("data-series")))).toEqual([
        TITLE,
        "second session",
      ]);
      for (const path of await real.all())
        expect((await path.getAttribute("d"))?.match(/[ML]/g)?.length).toBeGreaterThan(1);
      // Each dashed line is painted in its session's colour.
      const [first, second] = await colourPixels(opened.page, "svg.prompt-chart", [seriesColor(0), seriesColor(1)]);
      expect(first).toBeGreaterThan(0);
      expect(second).toBeGreaterThan(0);
      const legend = await opened.page.locator("figcaption").textContent();
      expect(legend).toContain("second session: provider's real prompt tokens");
      if (SHOTS !== undefined)
        await opened.page.screenshot({ path: join(SHOTS, "report-two-sessions.png"), fullPage: true });
    } finally {
      await opened.close();
    }
  });

  it("replay --compare none,summary,prune-first,cost-optimal --html: every figure of the CLI table is the page's, and coinciding lines stay visible", {
    timeout: 120_000,
  }, async () => {
    const out = join(dir, "four.html");
    const policies = ["none", "summary", "prune-first", "cost-optimal"];
    const args = ["replay", DEMO, "--compare", policies.join(","), "--context-window", "16000"];
    const result = await runPalimpsest([...args, "--html", out]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toMatch(
      new RegExp(`^wrote ${out} \\(4 series, \\d+ compactions\\)$`),
    );
    const metrics = textTable(result.stdout, ["policy", "turns"]);
    const fidelity = textTable(result.stdout, ["policy", "mean recall"]);
    expect(metrics.map((row) => row[0])).toEqual(["policy", ...policies]);
    const json = JSON.parse((await runPalimpsest(["--json", ...args])).stdout) as {
      policy: string;
      tokensReclaimed: number;
      peakPromptTokens: number;
    }[];
    const opened = await openInChromium(out);
    try {
      await expectRendered(opened, "Replay of demo-session.jsonl");
      const page = opened.page;
      // The page's tables are the CLI's, cell for cell.
      expect(await tableCells(page, "Cache metrics per policy")).toEqual(metrics);
      expect(await tableCells(page, "Fidelity per policy")).toEqual(fidelity);
      // The overview shows the same figures as the table (and the JSON where the table has none).
      const overview = await tableCells(page, "Overview");
      expect(column(overview, "turns")).toEqual(column(metrics, "turns"));
      expect(column(overview, "cache breaks")).toEqual(column(metrics, "cache breaks"));
      expect(column(overview, "compactions")).toEqual(column(fidelity, "compactions"));
      expect(column(overview, "tokens reclaimed")).toEqual(
        new Map(json.map((p) => [p.policy, String(p.tokensReclaimed)])),
      );
      expect(column(overview, "peak prompt tokens")).toEqual(
        new Map(json.map((p) => [p.policy, String(p.peakPromptTokens)])),
      );
      // So do the strips: each policy's caption and its red cells count the table's breaks.
      const breaks = column(metrics, "cache breaks");
      for (const policy of policies) {
        const note = await page
          .locator("h3", { hasText: new RegExp(`^${policy}$`) })
          .locator("+ p.note")
          .textContent();
        expect(note).toContain(`; ${breaks.get(policy)} cache breaks by the cache model`);
      }
      expect(breaks.get("summary")).not.toBe("0");
      // summary and prune-first draw one line: both stay visible, told apart and named in the legend.
      const line = (policy: string) => page.locator(`svg.prompt-chart path.series-line[data-series="${policy}"]`);
      expect(await line("summary").getAttribute("d")).toBe(await line("prune-first").getAttribute("d"));
      const [summary, pruneFirst] = await colourPixels(page, "svg.prompt-chart", [seriesColor(1), seriesColor(2)]);
      expect(summary).toBeGreaterThan(100);
      expect(pruneFirst).toBeGreaterThan(100);
      const style = async (policy: string): Promise<string> => {
        const [dash, width] = await Promise.all([
          line(policy).getAttribute("stroke-dasharray"),
          line(policy).getAttribute("stroke-width"),
        ]);
        return `${dash ?? "solid"} / ${width}`;
      };
      expect(await style("summary")).not.toBe(await style("prune-first"));
      expect(await page.locator(".coincide-note").allTextContents()).toEqual([
        "summary = prune-first here (the same line, drawn one over another)",
      ]);
      if (SHOTS !== undefined) await page.screenshot({ path: join(SHOTS, "report-four-policies.png"), fullPage: true });
    } finally {
      await opened.close();
    }
  });

  it("fails with a stable code and writes nothing for an unknown session or an unwritable path", {
    timeout: 60_000,
  }, async () => {
    const missing = join(dir, "missing.html");
    const unknown = await runPalimpsest(["--json", "--db", db, "report", "--html", missing, "ffffffff"]);
    expect(unknown.code).toBe(1);
    expect(jsonError(unknown).code).toBe("NOT_FOUND");
    expect(existsSync(missing)).toBe(false);
    const nowhere = join(dir, "no-such-dir", "out.html");
    const unwritable = await runPalimpsest(["--json", "--db", db, "report", "--html", nowhere, sessionId]);
    expect(unwritable.code).toBe(1);
    expect(jsonError(unwritable).code).toBe("STORAGE");
    expect(existsSync(join(dir, "no-such-dir"))).toBe(false);
  });
});
