import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { get_encoding } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_PIECE_CHARS } from "../../packages/core/src/tokenizer/long-run-count.ts";
import { piecesByExpression, piecesByScanner } from "../support/o200k-pieces.ts";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../support/real-transcripts.ts";

/** Every text a session's messages are counted by: text parts and tool calls' names and arguments. */
function textsOf(file: string): string[] {
  return realSessions(file).flatMap((session) =>
    session.items.flatMap((item) =>
      item.kind !== "message"
        ? []
        : [
            ...item.message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])),
            ...(item.message.toolCalls ?? []).flatMap((call) => [call.name, call.arguments]),
          ],
    ),
  );
}

describe.skipIf(!HAVE_TRANSCRIPTS)("o200k_base's scanner on the real transcripts", () => {
  const tiktoken = get_encoding("o200k_base");
  afterAll(() => tiktoken.free());

  it.each(realTranscriptFiles())(
    "%s: every text cut into the expression's pieces, counted as tiktoken counts it",
    async (file) => {
      const counter = await createTokenCounter("o200k_base");
      const texts = textsOf(file);
      expect(texts.length).toBeGreaterThan(0);
      for (const text of texts) {
        const pieces = piecesByScanner(text);
        expect(pieces).toEqual(piecesByExpression(text));
        // Pieces over MAX_PIECE_CHARS are counted in chunks (a documented over-count): exact below it.
        if (pieces.every((piece) => piece.length <= MAX_PIECE_CHARS))
          expect(counter.countText(text)).toBe(tiktoken.encode_ordinary(text).length);
      }
    },
  );
});
