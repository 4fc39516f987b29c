/** Automatic compaction after every completed turn, with trimming on append and telemetry to a file. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileJsonSink, openPalimpsest, TelemetryRecorder } from "palimpsest";
import { runTurns } from "./workload.ts";

const telemetryFile = join(mkdtempSync(join(tmpdir(), "palimpsest-")), "compaction.jsonl");

const palimpsest = await openPalimpsest({
  url: ":memory:",
  compaction: { auto: true, trimOnAppend: true, profile: "anthropic" /* policy, summarizer, contextWindow */ },
  onAutoCompaction: (outcome) => console.log(`auto compaction: ${outcome.status}`),
  // one content-free JSON line per pass (stderrJsonSink() by default, or callbackSink(fn))
  telemetry: new TelemetryRecorder({ sink: fileJsonSink(telemetryFile) }),
});

const session = await palimpsest.startSession({ model: "claude-sonnet-4", contextWindow: 64_000 });
await runTurns(session, 0, 40); // about 60,000 tokens of tool output, over the 40,800-token threshold

const [first] = await session.history();
console.log(
  `mode ${first?.mode}, trigger ${first?.trigger}, tokens ${first?.stats.tokensBefore} → ${first?.stats.tokensAfter}`,
);
console.log(`${readFileSync(telemetryFile, "utf8").trim().split("\n").length} telemetry line(s)`);
await palimpsest.close();
