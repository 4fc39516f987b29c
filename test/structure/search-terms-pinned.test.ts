/**
 * The terms core's indexedTerms makes of a fixed set of texts, pinned by a digest. SQLite's erasure takes a
 * message out of its FTS5 index by giving FTS5 the message's terms again, made by the code of the day
 * (sqlite-search.ts forgetSqliteSearch): terms made differently from those indexed would stay in the
 * index's pages. So a change to what searchTerms makes of any text must come with a migration that
 * indexes every message again (as 0022_search_secure_delete does); then update the digest below.
 */
import { createHash } from "node:crypto";
import { type DomainEvent, indexedTerms, type Message } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

/** Texts of the kinds messages hold: prose, code, paths, versions, numbers with units, other scripts. */
const TEXTS = [
  "Read src/app.ts: 42 lines, 3.5 KB. The build took 16ms (16 ms) on node-20.",
  "export function main(argv: string[]) { return argv.map((a) => a.trim()); } // TODO(err_quokka_7731)",
  "Versions 3.16.0 and v2.1.38; model claude-sonnet-4; file .env and .beads/config.yml; ~/x_y-z.tar.gz",
  "Ünïcödé Straße ÉCOLE İstanbul ǅemal ΣΊΣΥΦΟΣ 東京タワー 서울 مرحبا नमस्ते 😀 emoji-and_text",
  `${"aGVsbG8gd29ybGQ".repeat(10)} ${"0123456789abcdef".repeat(5)} deadbeef-0000-4000-8000-123456789abc`,
  "   spaced\tout\nlines\r\nand — dashes – quotes “like” 'this' \"and\" `that` $HOME %PATH% 100% 3/4 1,000,000",
];

const message = (text: string): Message => ({ id: "m", role: "user", content: [{ type: "text", text }] });

describe("search terms pinned", () => {
  it("makes the same terms of the pinned texts (a change needs a migration that indexes every message again)", () => {
    const terms = TEXTS.map((text) =>
      indexedTerms({ type: "message.appended", data: { message: message(text) } } as DomainEvent),
    );
    const digest = createHash("sha256").update(JSON.stringify(terms)).digest("hex");
    expect(terms.every((t) => t !== null && t.length > 40)).toBe(true);
    expect(digest).toBe("b04f02ad77178094007be577980e33377a47284faa8f353dbc2c0d4a9e366558");
  });
});
