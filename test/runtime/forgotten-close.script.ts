/**
 * Run as its own process by forgotten-close.test.ts: opens a runtime on the database at argv[2], writes a
 * turn, says so on stdout, and ends without calling close(), as a script that forgets it does.
 */
import { openPalimpsest } from "@palimpsest/runtime";

const runtime = await openPalimpsest({ url: process.argv[2] ?? "" });
const session = await runtime.startSession({ model: "gpt-4o" });
await session.append([{ role: "user", content: "hi" }], { turnId: "t1", completeTurn: true });
console.log(JSON.stringify({ appended: session.id }));
