import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isCi, locateTranscripts, missingTranscripts } from "./transcripts-location.ts";

describe("locating the shared real transcripts", () => {
  const top = mkdtempSync(join(tmpdir(), "palimpsest-transcripts-"));
  afterAll(() => rmSync(top, { recursive: true, force: true }));
  const make = (...parts: string[]) => {
    const dir = join(top, ...parts);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it("finds ../shared/transcripts beside the clone", () => {
    const clone = make("a", "clone");
    const shared = make("a", "shared", "transcripts");
    expect(locateTranscripts(clone, {})).toEqual({ found: true, dir: shared });
  });

  it("finds ../../shared/transcripts when the clone is one folder deeper, and the nearest one first", () => {
    make("b", "shared", "transcripts");
    const clone = make("b", "worktrees", "clone");
    expect(locateTranscripts(clone, {})).toEqual({ found: true, dir: join(top, "b", "shared", "transcripts") });
    const nearer = make("b", "worktrees", "shared", "transcripts");
    expect(locateTranscripts(clone, {})).toEqual({ found: true, dir: nearer });
  });

  it("does not take the clone's own shared/transcripts, nor a file of that name", () => {
    const clone = make("c", "clone");
    make("c", "clone", "shared", "transcripts");
    make("c", "shared");
    writeFileSync(join(top, "c", "shared", "transcripts"), "");
    const location = locateTranscripts(clone, {});
    expect(location.found && location.dir.startsWith(top)).toBe(false);
    if (!location.found) expect(location.looked[0]).toBe(join(top, "c", "shared", "transcripts"));
  });

  it("takes $PALIMPSEST_TRANSCRIPTS first, and only it when it is set", () => {
    const clone = make("d", "clone");
    make("d", "shared", "transcripts");
    const elsewhere = make("elsewhere");
    expect(locateTranscripts(clone, { PALIMPSEST_TRANSCRIPTS: elsewhere })).toEqual({ found: true, dir: elsewhere });
    const missing = join(top, "nowhere");
    expect(locateTranscripts(clone, { PALIMPSEST_TRANSCRIPTS: missing })).toEqual({ found: false, looked: [missing] });
  });

  it("looks up to the filesystem's root, and says where it looked", () => {
    const location = locateTranscripts("/x/y/clone", {}, () => false);
    expect(location).toEqual({
      found: false,
      looked: ["/x/y/shared/transcripts", "/x/shared/transcripts", "/shared/transcripts"],
    });
  });

  it("skips loudly outside CI and fails under CI, naming PALIMPSEST_TRANSCRIPTS", () => {
    const looked = { looked: ["/x/shared/transcripts"] };
    const local = missingTranscripts(looked, {});
    expect(local.fail).toBe(false);
    expect(local.message).toMatch(/PALIMPSEST_TRANSCRIPTS is not set.*\/x\/shared\/transcripts.*SKIPPED/);
    const ci = missingTranscripts(looked, { CI: "true" });
    expect(ci.fail).toBe(true);
    expect(ci.message).toMatch(/PALIMPSEST_TRANSCRIPTS.*FAILS/);
    expect(missingTranscripts({ looked: ["/t"] }, { CI: "1", PALIMPSEST_TRANSCRIPTS: "/t" }).message).toMatch(
      /PALIMPSEST_TRANSCRIPTS=\/t is not a folder/,
    );
  });

  it("reads CI as CI services set it", () => {
    expect([undefined, "", "0", "false", "FALSE"].some((CI) => isCi({ CI }))).toBe(false);
    expect(["true", "1", "yes"].every((CI) => isCi({ CI }))).toBe(true);
  });
});
