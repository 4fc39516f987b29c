import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compactRange, openPalimpsest } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonError, ROOT, runPalimpsest } from "./harness.ts";
import { HAVE_CHROMIUM, type OpenedPage, openInChromium } from "./report-html-browser.ts";

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

describe.skipIf(!HAVE_CHROMIUM)("HTML report in headless Chromium", () => {
  let dir: string;
  let db: string;
  let sessionId: string;
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
