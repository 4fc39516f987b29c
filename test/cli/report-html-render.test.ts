import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPalimpsestError } from "@palimpsest/core";
import { ANTHROPIC_PROFILE } from "@palimpsest/core/testing";
import { cacheRulesForProfile } from "@palimpsest/eval";
import { compactRange, openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderReport } from "../../packages/cli/src/report-html/render-report.ts";
import type { ReportData, ReportSeries } from "../../packages/cli/src/report-html/report-data.ts";
import { seriesFigures } from "../../packages/cli/src/report-html/series-figures.ts";
import { sessionSeries } from "../../packages/cli/src/report-html/session-series.ts";
import { writeAtomically } from "../../packages/cli/src/write-atomically.ts";

const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)> & 'quoted'`;

function series(label: string, compactions: number, requests = 30): ReportSeries {
  const points = {
    requests: Array.from({ length: requests }, (_, i) => ({
      x: i + 1,
      viewTokens: 1_000 + (i % 10) * 900,
      model: { cachedTokens: i === 0 ? 0 : 900, cacheWriteTokens: 100, cacheBreak: i % 10 === 0 && i > 0 },
      ...(i % 3 === 0
        ? {}
        : { real: { promptTokens: 2_000 + i * 10, cacheReadTokens: i % 4 === 0 ? 0 : 1_500, cacheWriteTokens: 50 } }),
      ...(i === 0 ? { firstOfSession: true as const } : {}),
    })),
    compactions: Array.from({ length: compactions }, (_, i) => ({
      x: (i + 1) * 3 + 0.5,
      seq: 10 + i,
      mode: i % 2 === 0 ? ("summary" as const) : ("micro" as const),
      tokensBefore: 9_000,
      tokensAfter: 1_000 + i,
      promptBefore: 9_000,
      promptAfter: 1_000 + i,
    })),
  };
  return { label, ...points, figures: seriesFigures(points.requests, points.compactions) };
}

function data(all: ReportSeries[]): ReportData {
  return {
    title: `Session ${HOSTILE}`,
    subtitle: `model ${HOSTILE}`,
    series: all,
    tables: [{ caption: "Cache metrics per policy", header: ["policy", "cost"], rows: [[HOSTILE, 1.5]] }],
  };
}

const count = (html: string, needle: string): number => html.split(needle).length - 1;

describe("renderReport", () => {
  it("draws exactly one .compaction-mark per compaction of every series", () => {
    for (const sizes of [[0], [1], [7, 0, 3], [250, 40]]) {
      const html = renderReport(data(sizes.map((n, i) => series(`policy-${i}`, n))));
      expect(count(html, 'class="compaction-mark"')).toBe(sizes.reduce((a, b) => a + b, 0));
    }
  });

  it("escapes every string from a transcript or log (title, model, labels, table cells, modes)", () => {
    const html = renderReport(data([series(HOSTILE, 2)]));
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain(`"x")`);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain(`data-policy="&lt;script&gt;`);
    expect(html).toContain("&#39;quoted&#39;");
  });

  it("needs no network: no URL but the SVG namespace, no script, no external stylesheet or font", () => {
    const html = renderReport(data([series("summary", 4), series("micro", 9)]));
    const urls = html.match(/[a-z]+:\/\/[^\s"'<>)]*/gi) ?? [];
    expect(urls.length).toBeGreaterThan(0); // the xmlns of each svg
    expect(new Set(urls)).toEqual(new Set(["http://www.w3.org/2000/svg"]));
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|<[^>]*\s(src|href)=/i);
  });

  it("is accessible: the chart has a title and desc, every table has a caption and column headers", () => {
    const html = renderReport(data([series("summary", 3)]));
    expect(html).toMatch(/<svg class="prompt-chart" role="img" aria-labelledby="chart-title chart-desc"/);
    expect(html).toContain('<title id="chart-title">');
    expect(html).toMatch(/<desc id="chart-desc">[^<]*3 compactions marked/);
    expect(count(html, "<table")).toBe(count(html, "<caption>"));
    expect(count(html, "<table")).toBe(count(html, "<thead>"));
    expect(html).toContain('<th scope="col">');
  });
});

describe("renderReport's lines", () => {
  const paths = (html: string, cls: string): string[] =>
    html.match(new RegExp(`<path class="${cls}"[^>]*>`, "g")) ?? [];

  it("draws coinciding series apart (widest first, then dashed) and names them in the legend", () => {
    const html = renderReport(data([series("summary", 3), series("prune-first", 3), series("none", 0)]));
    const [summary, pruneFirst, none] = paths(html, "series-line");
    expect(summary).toContain('stroke-width="4"');
    expect(summary).not.toContain("stroke-dasharray");
    expect(pruneFirst).toContain('stroke-width="1.6"');
    expect(pruneFirst).toContain('stroke-dasharray="9 5"');
    expect(none).toContain('stroke-width="1.6"');
    expect(html).toContain('<li class="coincide-note">summary = prune-first here');
    expect(count(html, `class="coincide-note"`)).toBe(1);
    expect(count(renderReport(data([series("summary", 3), series("none", 0)])), `class="coincide-note"`)).toBe(0);
  });

  it("draws one real-usage line per distinct usage: each session's own, one for series that share theirs", () => {
    const other = series("second", 1);
    for (const r of other.requests)
      if (r.real !== undefined) r.real = { ...r.real, promptTokens: r.real.promptTokens + 500 };
    const sessions = paths(renderReport(data([series("first", 1), other])), "real-line");
    expect(sessions.map((p) => p.match(/data-series="([^"]*)"/)?.[1])).toEqual(["first", "second"]);
    const shared = paths(renderReport(data([series("summary", 1), series("micro", 4)])), "real-line");
    expect(shared.map((p) => p.match(/data-series="([^"]*)"/)?.[1])).toEqual(["summary, micro"]);
  });
});

describe("sessionSeries", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "palimpsest-report-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("folds a log: one request per assistant message, real usage on the turn's last request, a point per compaction (not per retraction)", async () => {
    const palimpsest = await openPalimpsest({ url: join(dir, "fold.db") });
    try {
      const session = await palimpsest.startSession({ model: "claude-sonnet-4", contextWindow: 200_000 });
      for (let turn = 1; turn <= 4; turn++) {
        await session.append(
          { role: "user", content: `question ${turn} ${"words ".repeat(800)}` },
          { turnId: `t${turn}` },
        );
        await session.append({ role: "assistant", content: `answer ${turn}` }, { turnId: `t${turn}` });
        await session.completeTurn(
          `t${turn}`,
          turn === 2 ? {} : { promptTokens: 100 * turn, cacheReadTokens: 7 * turn },
        );
      }
      const live = session.view().messages;
      await compactRange(session, {
        fromId: live[1]?.id ?? "",
        toId: live[4]?.id ?? "",
        summary: "summary of turns",
      });
      await session.append({ role: "user", content: "again" }, { turnId: "t5" });
      await session.append({ role: "assistant", content: "done" }, { turnId: "t5" });
      // A retraction (an adapter's bookkeeping rewrite of the last answer) moves the view version, but is no compaction.
      const done = session.view().messages.at(-1)?.id ?? "";
      await session.rewrite({
        mode: "retract",
        targets: [done],
        replacements: [{ role: "assistant", content: "done!" }],
      });
      expect(session.state.viewVersion).toBe(2);
      expect(session.resumeState().compactions).toBe(1);
      const events = await palimpsest.store.readStream(session.id);
      const out = sessionSeries(events, cacheRulesForProfile(ANTHROPIC_PROFILE));
      expect(out.requests.map((r) => r.x)).toEqual([1, 2, 3, 4, 5]);
      expect(out.requests[0]?.firstOfSession).toBe(true);
      expect(out.requests.map((r) => r.real?.promptTokens)).toEqual([100, undefined, 300, 400, undefined]);
      expect(out.requests[2]?.real?.cacheReadTokens).toBe(21);
      expect(out.compactions).toHaveLength(1);
      expect(out.compactions[0]).toMatchObject({ x: 4.5, mode: "summary" });
      const [before, after] = [out.requests[3]?.viewTokens ?? 0, out.requests[4]?.viewTokens ?? 0];
      expect(after).toBeLessThan(before); // the compaction shrank the next prompt
      // The compaction broke the cached prefix of the next request, and only that one.
      expect(out.requests.map((r) => r.model.cacheBreak)).toEqual([false, false, false, false, true]);
      expect(out.figures).toMatchObject({ turns: 5, compactions: 1, peakPromptTokens: before, cacheBreaks: 1 });
    } finally {
      await palimpsest.close();
    }
  });
});

describe("writeAtomically", () => {
  it("reports an unwritable path as STORAGE and leaves no file behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-report-"));
    try {
      const error = await writeAtomically(join(dir, "missing", "out.html"), "x").catch((e: unknown) => e);
      expect(isPalimpsestError(error, "STORAGE")).toBe(true);
      await writeAtomically(join(dir, "out.html"), "whole");
      expect(await readFile(join(dir, "out.html"), "utf8")).toBe("whole");
      expect(await readdir(dir)).toEqual(["out.html"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
