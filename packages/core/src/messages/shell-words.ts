/** One simple command of a shell line: its words (quotes removed) and the targets of its output redirections. */
export interface SimpleCommand {
  words: string[];
  redirects: string[];
}

const SEPARATORS = new Set(["&&", "||", ";", "|", "&", "\n", "(", ")", "$(", "`"]);

/**
 * Splits a shell command into simple commands: quote-aware words, separated by `&&`, `||`, `;`, `|`, `&`,
 * newlines, parentheses, `$(` and backticks; heredoc bodies are dropped; `>`/`>>` targets are kept apart
 * (`2>&1` and other fd duplications are not targets). A tokenizer, not a shell: no expansion.
 */
export function simpleCommands(command: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [] };
  let redirectNext = false;
  const flush = (): void => {
    if (current.words.length > 0 || current.redirects.length > 0) out.push(current);
    current = { words: [], redirects: [] };
    redirectNext = false;
  };
  for (const token of tokens(stripHeredocs(command))) {
    if (token.operator) {
      if (SEPARATORS.has(token.text)) flush();
      else if (/^\d*>>?$|^&>$/.test(token.text)) redirectNext = true;
      continue;
    }
    if (redirectNext) current.redirects.push(token.text);
    else current.words.push(token.text);
    redirectNext = false;
  }
  flush();
  return out;
}

interface Token {
  text: string;
  operator: boolean;
}

/** Drops the body of every heredoc (`<<EOF`, `<<-'EOF'`, `<< "EOF"`) up to its delimiter line. */
function stripHeredocs(command: string): string {
  const lines = command.replace(/\r\n?/g, "\n").split("\n");
  const kept: string[] = [];
  let delimiters: string[] = [];
  for (const line of lines) {
    if (delimiters.length > 0) {
      if (line.trim() === delimiters[0]) delimiters = delimiters.slice(1);
      continue;
    }
    kept.push(line);
    for (const m of line.matchAll(/<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g)) delimiters.push(m[2] ?? "");
  }
  return kept.join("\n");
}

/** Shell words and operators, quotes removed from words. */
function* tokens(text: string): Generator<Token> {
  let i = 0;
  let word = "";
  let inWord = false;
  const end = function* (): Generator<Token> {
    if (inWord) yield { text: word, operator: false };
    word = "";
    inWord = false;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length) {
      if (text[i + 1] !== "\n") {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
      continue;
    }
    if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1);
      const stop = close < 0 ? text.length : close;
      word += text.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
      continue;
    }
    const operator = operatorAt(text, i);
    if (operator !== undefined) {
      // `2>` and `2>&1`: the digits before `>` are a file descriptor, not a word.
      if (operator.startsWith(">") && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      }
      yield* end();
      yield { text: operator.replace(/^<<-?$/, "<<"), operator: true };
      i += operator.length;
      continue;
    }
    if (c === " " || c === "\t") {
      yield* end();
      i += 1;
      continue;
    }
    word += c;
    inWord = true;
    i += 1;
  }
  yield* end();
}

/** The operator starting at `i`, if any (`>&1` is a descriptor duplication, one operator). */
function operatorAt(text: string, i: number): string | undefined {
  const rest = text.slice(i, i + 4);
  if (/^>&\d/.test(rest)) return rest.slice(0, 3);
  return OPERATORS.find((op) => rest.startsWith(op));
}

const OPERATORS = ["&&", "||", "$(", ">>", "&>", "<<-", "<<", ";", "|", "&", "\n", "(", ")", "`", ">", "<"];
