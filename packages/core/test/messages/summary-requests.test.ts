import { describe, expect, it } from "vitest";
import { summaryRequestTokens } from "../../src/compaction/summary-need.ts";
import { summaryRequestTexts } from "../../src/messages/summary-requests.ts";
import { parseDoc } from "../../src/summary/summary-format.ts";
import { live } from "../compaction/view-builders.ts";

const FENCED = "```text\nAdd a --dry-run flag to deploy.sh\n```";

/** Summaries as summarizers and models write them, and the requests the summary format reads from each. */
const SHAPES: { shape: string; summary: string; requests: string[] }[] = [
  {
    shape: "the offline summarizer's: a header, then the fence",
    summary: `## User Requests\nVerbatim, oldest first.\n[request 1]\n${FENCED}\n\n## Files\n- deploy.sh`,
    requests: ["Add a --dry-run flag to deploy.sh"],
  },
  {
    shape: "a provider's: a header naming the message, CRLF line ends",
    summary: `## User Requests\r\n[request 1 · u-17]\r\n${FENCED.replace(/\n/g, "\r\n")}\r\n`,
    requests: ["Add a --dry-run flag to deploy.sh"],
  },
  {
    shape: "a blank line between the header and the fence",
    summary: `## User Requests\n[request 1]\n\n${FENCED}`,
    requests: ["Add a --dry-run flag to deploy.sh"],
  },
  {
    shape: "a fence with no header",
    summary: `## User Requests\n${FENCED}\n${FENCED.replace("Add", "Then add")}`,
    requests: ["Add a --dry-run flag to deploy.sh", "Then add a --dry-run flag to deploy.sh"],
  },
  {
    shape: "a header with a trailing space",
    summary: `## User Requests\n[request 1] \n${FENCED}`,
    requests: ["Add a --dry-run flag to deploy.sh"],
  },
  {
    shape: "a header and a fence under another section",
    summary: `## Earlier Context\n[request 1]\n${FENCED}\n## Current State\n- done`,
    requests: [],
  },
  {
    shape: "a heading inside a request's fence",
    summary: "## User Requests\n[request 1]\n```\nWrite the README:\n## Usage\nrun it\n```\n## Files\n- README.md",
    requests: ["Write the README:\n## Usage\nrun it"],
  },
  {
    shape: "two summaries one after the other",
    summary: `## User Requests\n[request 1]\n${FENCED}\n## Files\n- a\n## User Requests\n[request 1]\n\`\`\`\nShip it\n\`\`\``,
    requests: ["Add a --dry-run flag to deploy.sh", "Ship it"],
  },
];

describe("the requests a summary holds, read the one way", () => {
  for (const { shape, summary, requests } of SHAPES) {
    it(`reads what the summary format reads: ${shape}`, () => {
      expect(parseDoc(summary).requests.map((r) => r.text)).toEqual(requests);
      expect(summaryRequestTexts(summary)).toEqual(requests);
      // Cost-optimal's summary need counts an earlier summary's requests with the same reader.
      const entry = live({ id: "s1", role: "user", content: [{ type: "text", text: summary }] }, 5_000, {
        compactionId: "c1",
        kind: "summary",
      });
      expect(summaryRequestTokens([entry]) > 0).toBe(requests.length > 0);
    });
  }
});
