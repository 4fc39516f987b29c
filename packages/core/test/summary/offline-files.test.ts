import { type Message, OfflineSummarizer } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const ROOT = "/home/USER/projects/spotter-worktrees/spotter-0rt";
const text = (t: string) => [{ type: "text" as const, text: t }];

/** The agent reading then editing `path` (relative to ROOT), with the results. */
function touch(n: number, path: string): Message[] {
  const file = `${ROOT}/${path}`;
  return [
    {
      id: `a${n}`,
      role: "assistant",
      content: text(`Looking at ${path}.`),
      toolCalls: [
        { id: `r${n}`, name: "Read", arguments: JSON.stringify({ file_path: file }) },
        { id: `e${n}`, name: "Edit", arguments: JSON.stringify({ file_path: file, old_string: "a", new_string: "b" }) },
      ],
    },
    { id: `rt${n}`, role: "tool", toolCallId: `r${n}`, content: text("1\tconst a = 1;") },
    { id: `et${n}`, role: "tool", toolCallId: `e${n}`, content: text("The file has been updated.") },
  ];
}

const offline = new OfflineSummarizer();
const summarize = async (messages: Message[], previousSummary?: string) =>
  (
    await offline.summarize({
      messages,
      maxOutputTokens: 2_000,
      ...(previousSummary === undefined ? {} : { previousSummary }),
    })
  ).text;

/** The Files section of a summary. */
const filesOf = (summary: string) =>
  summary.slice(summary.indexOf("## Files"), summary.indexOf("\n## ", summary.indexOf("## Files") + 1));

describe("the offline summary's Files section", () => {
  it("names the folder the paths share once and keeps each path's last segments", async () => {
    const summary = await summarize([
      { id: "u", role: "user", content: text("Fix the parser.") },
      ...touch(1, "src/parser/lexer.ts"),
      ...touch(2, "src/parser/tokens.ts"),
      ...touch(3, "test/lexer.test.ts"),
    ]);
    const files = filesOf(summary);
    expect(files.split(ROOT)).toHaveLength(2);
    expect(files).toContain(`Under \`${ROOT}/\`:`);
    for (const path of ["src/parser/lexer.ts", "src/parser/tokens.ts", "test/lexer.test.ts"]) {
      expect(files).toContain(`- \`${path}\`: read, edited`);
    }
  });

  it("reads the shared folder back when a later summary updates it, even when the folder changes", async () => {
    const first = await summarize([...touch(1, "src/parser/lexer.ts"), ...touch(2, "src/parser/tokens.ts")]);
    // The later span touches a file outside src/parser: the shared folder moves up, the old paths stay whole.
    const second = await summarize([...touch(3, "docs/grammar/notes.md")], first);
    const files = filesOf(second);
    expect(files).toContain(`Under \`${ROOT}/\`:`);
    for (const path of ["src/parser/lexer.ts", "src/parser/tokens.ts", "docs/grammar/notes.md"]) {
      expect(files.match(new RegExp(`\`${path.replaceAll(".", "\\.")}\``, "g"))).toHaveLength(1);
    }
    // And a third pass over nothing new gives the same section.
    expect(filesOf(await summarize([], second))).toBe(files);
  });

  it("writes paths whole when they share no long folder, or are not all absolute", async () => {
    const short = (path: string, n: number) =>
      touch(n, "x").map((m) => JSON.parse(JSON.stringify(m).replaceAll(`${ROOT}/x`, path)) as Message);
    const apart = filesOf(await summarize([...short("/srv/a/x.ts", 1), ...short("/opt/b/y.ts", 2)]));
    expect(apart).not.toContain("Under");
    expect(apart).toContain("`/srv/a/x.ts`");
    expect(apart).toContain("`/opt/b/y.ts`");
    const relative: Message[] = [
      {
        id: "a",
        role: "assistant",
        content: text("Reading."),
        toolCalls: [
          { id: "r1", name: "Read", arguments: JSON.stringify({ file_path: "src/a/x.ts" }) },
          { id: "r2", name: "Read", arguments: JSON.stringify({ file_path: `${ROOT}/src/a/y.ts` }) },
        ],
      },
      { id: "t1", role: "tool", toolCallId: "r1", content: text("x") },
      { id: "t2", role: "tool", toolCallId: "r2", content: text("y") },
    ];
    const files = filesOf(await summarize(relative));
    expect(files).not.toContain("Under");
    expect(files).toContain("`src/a/x.ts`");
    expect(files).toContain(`\`${ROOT}/src/a/y.ts\``);
  });

  it("lists relative paths first, then the folder the absolute ones share", async () => {
    const calls = [
      { id: "r1", path: "src/a/x.ts" },
      { id: "r2", path: `${ROOT}/src/a/y.ts` },
      { id: "r3", path: `${ROOT}/lib/b/z.ts` },
    ];
    const files = filesOf(
      await summarize([
        {
          id: "a",
          role: "assistant",
          content: text("Reading."),
          toolCalls: calls.map(({ id, path }) => ({
            id,
            name: "Read",
            arguments: JSON.stringify({ file_path: path }),
          })),
        },
        ...calls.map(({ id }): Message => ({ id: `t${id}`, role: "tool", toolCallId: id, content: text("x") })),
      ]),
    );
    expect(files.trim().split("\n").slice(1)).toEqual([
      "- `src/a/x.ts`: read",
      `Under \`${ROOT}/\`:`,
      "- `src/a/y.ts`: read",
      "- `lib/b/z.ts`: read",
    ]);
  });

  it("names the folder most paths share, and writes whole a path elsewhere or directly in that folder", async () => {
    const deep = ["src/a/x.ts", "src/a/y.ts", "lib/b/z.ts", "lib/c/w.ts", "test/d/v.ts"];
    const reads = [...deep.map((p) => `${ROOT}/${p}`), `${ROOT}/mix.exs`, "/tmp/run-1/out.log"];
    const files = filesOf(
      await summarize([
        {
          id: "a",
          role: "assistant",
          content: text("Reading."),
          toolCalls: reads.map((path, i) => ({
            id: `r${i}`,
            name: "Read",
            arguments: JSON.stringify({ file_path: path }),
          })),
        },
        ...reads.map((_, i): Message => ({ id: `t${i}`, role: "tool", toolCallId: `r${i}`, content: text("x") })),
      ]),
    );
    // mix.exs lies directly in the folder: relative to it, it would keep one segment only.
    expect(files.trim().split("\n").slice(1)).toEqual([
      `- \`${ROOT}/mix.exs\`: read`,
      "- `/tmp/run-1/out.log`: read",
      `Under \`${ROOT}/\`:`,
      ...deep.map((p) => `- \`${p}\`: read`),
    ]);
  });

  it("keeps the paths of successful shell commands it drops to meet its budget", async () => {
    const paths = Array.from({ length: 40 }, (_, i) => `${ROOT}/deps/package-${i}/lib/module-${i}.ex`);
    const messages: Message[] = paths.flatMap((path, i): Message[] => [
      {
        id: `a${i}`,
        role: "assistant",
        content: text("Checking."),
        toolCalls: [
          { id: `c${i}`, name: "Bash", arguments: JSON.stringify({ command: `head -n 40 ${path} | grep defmodule` }) },
        ],
      },
      { id: `t${i}`, role: "tool", toolCallId: `c${i}`, content: text("defmodule X do") },
    ]);
    const summary = (await offline.summarize({ messages, maxOutputTokens: 900 })).text;
    expect(summary).toMatch(/\d+ lines dropped/);
    const commands = summary.slice(
      summary.indexOf("## Commands"),
      summary.indexOf("\n## ", summary.indexOf("## Commands") + 1),
    );
    const dropped = paths.filter((p) => !commands.includes(p));
    expect(dropped.length).toBeGreaterThan(10);
    const files = filesOf(summary);
    for (const path of dropped) {
      const [, tail] = /(package-\d+\/lib\/module-\d+\.ex)$/.exec(path) ?? [];
      expect(files).toContain(`${tail}\`: named by a command`);
    }
  });

  it("does not list again a path a dropped command named relative to a file it lists, nor take a bare name for one", async () => {
    const listed = `${ROOT}/test/parser_test.exs`;
    const elsewhere = `${ROOT}/deps/foo/mix.exs`;
    const messages: Message[] = [
      {
        id: "a0",
        role: "assistant",
        content: text("Reading."),
        toolCalls: [listed, elsewhere].map((file_path, i) => ({
          id: `r${i}`,
          name: "Read",
          arguments: JSON.stringify({ file_path }),
        })),
      },
      ...[0, 1].map((i): Message => ({ id: `t${i}`, role: "tool", toolCallId: `r${i}`, content: text("x") })),
      ...Array.from({ length: 30 }, (_, i): Message[] => [
        {
          id: `a${i + 1}`,
          role: "assistant",
          content: text("Testing."),
          toolCalls: [
            {
              id: `c${i}`,
              name: "Bash",
              arguments: JSON.stringify({
                command: `mix test ./test/parser_test.exs --seed ${i} --trace && cat mix.exs | head -${i + 1}`,
              }),
            },
          ],
        },
        { id: `t${i + 1}`, role: "tool", toolCallId: `c${i}`, content: text("1 test, 0 failures") },
      ]).flat(),
    ];
    const summary = (await offline.summarize({ messages, maxOutputTokens: 400 })).text;
    expect(summary).toMatch(/\d+ lines dropped/);
    const files = filesOf(summary);
    expect(files).toContain("parser_test.exs`: read");
    expect(files).not.toContain("parser_test.exs`: named by a command");
    // The project's own mix.exs is not the dependency's one Files lists.
    expect(files).toContain("- `mix.exs`: named by a command");
  });
});

describe("the offline summary's figures", () => {
  const bench: Message[] = [
    {
      id: "a1",
      role: "assistant",
      content: text("Running the benchmark."),
      toolCalls: [{ id: "c1", name: "Bash", arguments: JSON.stringify({ command: "npm run bench" }) }],
    },
    { id: "t1", role: "tool", toolCallId: "c1", content: text("append: 16 ms p50, 2.5x the baseline, 85% cache hits") },
    { id: "a2", role: "assistant", content: text("The p99 is 0.93 s, within budget.") },
  ];

  it("keep the measured numbers of tool output and of the assistant's text, by source", async () => {
    const summary = await summarize(bench);
    expect(summary).toContain("Figures, `npm run bench`: 16ms, 2.5x, 85%");
    expect(summary).toContain("Figures, assistant: 0.93s");
  });

  it("survive a later summary, gathered by source without repeats", async () => {
    const first = await summarize(bench);
    const again: Message[] = [
      {
        id: "a3",
        role: "assistant",
        content: text("Again."),
        toolCalls: [{ id: "c3", name: "Bash", arguments: JSON.stringify({ command: "npm run bench" }) }],
      },
      { id: "t3", role: "tool", toolCallId: "c3", content: text("append: 16 ms p50, 12.5 MB heap") },
    ];
    const second = await summarize(again, first);
    expect(second.match(/^Figures, `npm run bench`: .*$/gm)).toEqual([
      "Figures, `npm run bench`: 16ms, 2.5x, 85%, 12.5MB",
    ]);
    expect(second).toContain("Figures, assistant: 0.93s");
  });

  it("survive a later summary when their source's name was cut, on one line", async () => {
    const command = `cd ${ROOT}/assets && npx vitest run test/transcript_renderer_test.ts 2>&1`;
    const first = await summarize([
      {
        id: "a1",
        role: "assistant",
        content: text("Running the tests."),
        toolCalls: [{ id: "c1", name: "Bash", arguments: JSON.stringify({ command }) }],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: text("12 passed in 1.25 s") },
    ]);
    expect(first).toMatch(/^Figures, `cd .+ \[… \d+ chars omitted …\] .+ 2>&1`: 1\.25s$/m);
    const later: Message[] = [{ id: "a2", role: "assistant", content: text("Done with the renderer.") }];
    expect(await summarize(later, first)).toContain("2>&1`: 1.25s");
  });

  it("are dropped before the commands when the budget is tight, and the drop is counted", async () => {
    const noisy: Message[] = Array.from({ length: 30 }, (_, i): Message[] => [
      {
        id: `a${i}`,
        role: "assistant",
        content: text("Measuring."),
        toolCalls: [{ id: `c${i}`, name: "Bash", arguments: JSON.stringify({ command: `./measure --case ${i}` }) }],
      },
      {
        id: `t${i}`,
        role: "tool",
        toolCallId: `c${i}`,
        content: text(Array.from({ length: 12 }, (_, k) => `${i}.${k}5 ms`).join(", ")),
      },
    ]).flat();
    const summary = (await offline.summarize({ messages: noisy, maxOutputTokens: 700 })).text;
    expect(summary).toMatch(/\d+ lines dropped/);
    const commands = summary.match(/^- ✓ `\.\/measure --case \d+`$/gm) ?? [];
    const figures = summary.match(/^Figures, /gm) ?? [];
    expect(commands.length).toBe(30);
    expect(figures.length).toBeLessThan(30);
  });

  it("outlast the successful calls of tools other than a shell", async () => {
    const fetches: Message[] = Array.from({ length: 30 }, (_, i): Message[] => [
      {
        id: `a${i}`,
        role: "assistant",
        content: text("Fetching."),
        toolCalls: [
          { id: `c${i}`, name: "WebFetch", arguments: JSON.stringify({ url: `https://example.com/page-${i}` }) },
        ],
      },
      { id: `t${i}`, role: "tool", toolCallId: `c${i}`, content: text(`p50 ${i}.5 ms, hit rate ${i}%`) },
    ]).flat();
    const summary = (await offline.summarize({ messages: fetches, maxOutputTokens: 900 })).text;
    expect(summary).toMatch(/\d+ lines dropped/);
    const calls = summary.match(/^- ✓ WebFetch/gm) ?? [];
    const figures = summary.match(/^Figures, /gm) ?? [];
    expect(calls.length).toBeLessThan(30);
    expect(figures.length).toBe(30);
  });

  it("keep the numbers of a long output that the serializer cut, after the part it kept", async () => {
    const long = `${"row ok\n".repeat(600)}median 41.5 ms, p99 0.25 s, 97% hits\n${"row ok\n".repeat(600)}`;
    const summary = await summarize([
      {
        id: "a1",
        role: "assistant",
        content: text("Benchmarking."),
        toolCalls: [{ id: "c1", name: "Bash", arguments: JSON.stringify({ command: "npm run bench" }) }],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: text(long) },
    ]);
    expect(summary).toContain("Figures, `npm run bench`: 41.5ms, 0.25s, 97%");
  });
});
