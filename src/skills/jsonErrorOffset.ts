/**
 * Where a JSON text first goes wrong, as a character offset. JSON.parse says *what* is wrong
 * but, in current V8, often not *where*; a model fixing a file it wrote needs the line
 * (docs/forged-tools.md, "The form"). Only called after JSON.parse has failed.
 */
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const LITERALS = ['true', 'false', 'null'];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings; this is that rule.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Failure {
  constructor(readonly offset: number) {}
}

/** The offset of the first error; text.length when the text ends too early. */
export function jsonErrorOffset(text: string): number {
  let at = 0;
  const skip = () => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++;
  };
  const fail = (): never => {
    throw new Failure(at);
  };
  const token = (pattern: RegExp) => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) fail();
    at = pattern.lastIndex;
  };
  const value = (depth: number): void => {
    skip();
    if (depth > 512) fail();
    const c = text[at];
    if (c === '{') return container('}', depth, () => (token(STRING), skip(), text[at] === ':' ? at++ : fail(), value(depth + 1)));
    if (c === '[') return container(']', depth, () => value(depth + 1));
    if (c === '"') return token(STRING);
    const literal = LITERALS.find((word) => text.startsWith(word, at));
    if (literal) return void (at += literal.length);
    token(NUMBER);
  };
  const container = (close: string, depth: number, item: () => void): void => {
    at++;
    skip();
    if (text[at] === close) return void at++;
    for (;;) {
      skip();
      item();
      skip();
      if (text[at] === ',') at++;
      else if (text[at] === close) return void at++;
      else fail();
    }
  };
  try {
    value(0);
    skip();
    return at < text.length ? at : text.length;
  } catch (error) {
    if (error instanceof Failure) return error.offset;
    throw error;
  }
}
