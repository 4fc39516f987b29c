/** A tiny seeded PRNG (mulberry32), so the generated corpus is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UNICODE = [
  "héllo wörld, ça va?",
  "日本語のテキストを数える",
  "中文分词测试：你好，世界！",
  "한국어 문장입니다",
  "العربية نص تجريبي",
  "עברית בדיקה",
  "Ελληνικά και Кириллица",
  "🙂👍🏽 👨‍👩‍👧‍👦 🇫🇷",
  "e\u0301 a\u0308 n\u0303",
  "zero\u200bwidth\u00a0nbsp",
  "Ω≈ç√∫˜µ≤≥÷ ∑∏π",
];

const CODE = [
  "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
  "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n",
  '\tif (err != nil) {\n\t\treturn fmt.Errorf("open %s: %w", path, err)\n\t}\n',
  "SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL '7 days';",
  "const re = /^(?:[a-z0-9!#$%&'*+/=?^_`{|}~-]+)@example\\.com$/i;",
  "    at Object.<anonymous> (/app/src/index.ts:42:13)\n    at Module._compile (node:internal)",
];

const LOG = [
  "2024-05-01T12:00:01.123Z INFO  server listening on :8080",
  "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
  "FAIL  test/session.test.ts > appends a message\nAssertionError: expected 3 to be 4",
  "drwxr-xr-x  5 root root 4096 Nov 30 04:08 packages",
  "   Compiling serde v1.0.197\n    Finished dev [unoptimized + debuginfo] target(s) in 12.34s",
];

const SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|fim_prefix|>", "<|endofprompt|>", "<|im_sep|>"];
const WHITESPACE = ["   ", "\n\n\n", "\r\n", "\t\t", " \n \n", "                                "];

function jsonValue(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 2 || r < 0.3) return Math.floor(rand() * 1e9) / 100;
  if (r < 0.5) return `value_${Math.floor(rand() * 1e6).toString(36)}`;
  if (r < 0.7) return Array.from({ length: 1 + Math.floor(rand() * 4) }, () => jsonValue(rand, depth + 1));
  const entries = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, i) => [`key${i}`, jsonValue(rand, depth + 1)]);
  return Object.fromEntries(entries);
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function fragment(rand: () => number): string {
  const kind = Math.floor(rand() * 7);
  if (kind === 0) return pick(rand, UNICODE);
  if (kind === 1) return pick(rand, CODE);
  if (kind === 2) return pick(rand, LOG);
  if (kind === 3) return pick(rand, SPECIAL);
  if (kind === 4) return pick(rand, WHITESPACE);
  if (kind === 5) return String(Math.floor(rand() * 1e15));
  return JSON.stringify(jsonValue(rand, 0), null, rand() < 0.5 ? 2 : undefined);
}

/** A long tool output: hundreds of log lines with a JSON payload, like a test run or a build log. */
function toolOutput(rand: () => number): string {
  const lines = Array.from({ length: 200 + Math.floor(rand() * 400) }, () => pick(rand, [...LOG, ...CODE]));
  return `${lines.join("\n")}\n${JSON.stringify(jsonValue(rand, 0))}`;
}

/** `count` varied strings (Unicode, code, JSON, logs, special-token text, long tool outputs), seeded. */
export function textCorpus(count: number, seed = 42): string[] {
  const rand = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    if (i % 25 === 0) return toolOutput(rand);
    const parts = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => fragment(rand));
    return parts.join(rand() < 0.5 ? " " : "\n");
  });
}
