/**
 * Counting tokens without the model's tokenizer (docs/context-window.md, "Counting"). HTTP
 * servers do not lend Knack their tokenizer, and shipping one per model family would cost
 * megabytes, so the count is an estimate from the text's character classes, corrected per
 * model by the prompt counts the server reports (`usage.prompt_tokens`).
 *
 * The estimate follows how byte-pair tokenizers of current open models (Qwen, Llama 3,
 * Mistral, Gemma) cut text: a pre-tokenizer splits words, single digits or digit runs,
 * punctuation runs and whitespace, then common words are one token and rare ones several.
 * So: a word costs one token up to a length, then one more per few letters; digits one each;
 * punctuation about one per two characters; CJK about two characters per token; other scripts
 * and symbols by their UTF-8 bytes. Each message adds its chat-template frame (ChatML's
 * `<|im_start|>role\n…<|im_end|>\n` is five tokens), tool calls and results their tags, and
 * the tool schemas the template's tools block. The calibration ratio absorbs what differs
 * between tokenizers and templates; the measured error is in the doc.
 */
import type { ChatMessage, ToolSpec } from './provider';
import type { TokenCounter } from './modelWindow';

/** Template frame of one message: `<|im_start|>`, the role, `\n`, `<|im_end|>`, `\n`. */
export const MESSAGE_OVERHEAD = 5;
/** The reply's opening (`<|im_start|>assistant\n`), part of every request. */
export const REPLY_PRIMING = 3;
/** A tool call's frame: `<tool_call>\n{"name": "…", "arguments": …}\n</tool_call>` without the name and arguments. */
const TOOL_CALL_OVERHEAD = 12;
/** A tool result's frame: `<tool_response>\n…\n</tool_response>`. */
const TOOL_RESULT_OVERHEAD = 6;
/** The tools block's fixed text (Qwen's "# Tools … <tools> … </tools> … <tool_call>" instructions). */
const TOOLS_BLOCK_OVERHEAD = 100;
/** Each tool's JSON wrapper (`{"type": "function", "function": {…}}`) and the spacing the template adds to its JSON. */
const PER_TOOL_OVERHEAD = 20;

/** Calibration ratios outside this range are not believed (a server that counts something else). */
export const MIN_RATIO = 0.5;
export const MAX_RATIO = 2.5;
/** Requests smaller than this teach nothing: the frame overheads dominate them. */
export const MIN_CALIBRATION_TOKENS = 64;
/** Later observations move the ratio by this share; the first ones by more (1, 1/2, 1/3…). */
const SMOOTHING = 0.25;

const PIECES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+/gu;
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const LATIN = /^[\p{Script=Latin}]+$/u;

/** UTF-8 length of a string without encoding it. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

function wordTokens(word: string): number {
  if (LATIN.test(word)) {
    // Common words are one token up to about seven letters; longer ones split every ~4 letters,
    // and each accented letter often costs a token of its own.
    const accented = (word.match(/[^a-z]/gi) ?? []).length;
    return (word.length <= 7 ? 1 : 1 + Math.ceil((word.length - 7) / 4)) + accented;
  }
  // Cyrillic, Greek, Arabic…: fewer merges than Latin in these vocabularies.
  return Math.max(1, Math.ceil(word.length / 3));
}

function pieceTokens(piece: string): number {
  const first = piece.codePointAt(0)!;
  if (CJK.test(piece)) return Math.ceil(Array.from(piece).length / 1.5);
  if (/^\s/.test(piece)) {
    // A run of spaces is usually one token; each newline pair one; a leading space joins the next word.
    const newlines = (piece.match(/\n/g) ?? []).length;
    if (newlines === 0) return piece.length > 1 ? 1 : 0;
    return Math.ceil(newlines / 2) + (/[ \t]{2,}$/.test(piece) ? 1 : 0);
  }
  if (/\p{N}/u.test(piece[0]!)) return Array.from(piece).length;
  if (/\p{L}/u.test(piece[0]!)) return wordTokens(piece);
  if (first > 0x2000) return Math.max(1, Math.ceil(utf8Bytes(piece) / 2));
  // Punctuation runs: `{"`, `":"`, `"},`, `**`, `-->` are often single tokens.
  return Math.max(1, Math.ceil(piece.length / 3));
}

/** The uncalibrated estimate of a bare text. */
export function estimateTextTokens(text: string): number {
  if (text === '') return 0;
  let tokens = 0;
  for (const piece of text.match(PIECES) ?? []) tokens += pieceTokens(piece);
  return tokens;
}

/** The uncalibrated estimate of one message in its template frame, with its tool calls. */
export function estimateMessageTokens(message: ChatMessage): number {
  let tokens = MESSAGE_OVERHEAD + estimateTextTokens(message.content);
  for (const call of message.toolCalls ?? []) tokens += TOOL_CALL_OVERHEAD + estimateTextTokens(call.name) + estimateTextTokens(call.arguments);
  if (message.role === 'tool') tokens += TOOL_RESULT_OVERHEAD;
  return tokens;
}

/** The uncalibrated estimate of the tool schemas as the template's tools block. */
export function estimateToolTokens(tools: readonly ToolSpec[] | undefined): number {
  if (!tools || tools.length === 0) return 0;
  let tokens = TOOLS_BLOCK_OVERHEAD;
  for (const tool of tools) {
    tokens += PER_TOOL_OVERHEAD + estimateTextTokens(tool.name) + estimateTextTokens(tool.description) + estimateTextTokens(JSON.stringify(tool.parameters ?? {}));
  }
  return tokens;
}

/**
 * The next calibration ratio after the server counted `reported` tokens for a request this
 * counter put at `estimated` (with `ratio`). Each observation's own ratio is bounded, then
 * averaged in: fully for the first, then by 1/2, 1/3… down to SMOOTHING, so one odd request
 * cannot swing the estimate. Returns the ratio unchanged for requests too small to teach.
 */
export function nextRatio(ratio: number, observations: number, estimated: number, reported: number): number {
  if (!(estimated >= MIN_CALIBRATION_TOKENS) || !(reported > 0) || !Number.isFinite(reported)) return ratio;
  const seen = Math.min(MAX_RATIO, Math.max(MIN_RATIO, (ratio * reported) / estimated));
  const weight = Math.max(SMOOTHING, 1 / (observations + 1));
  const next = ratio + weight * (seen - ratio);
  return Math.round(Math.min(MAX_RATIO, Math.max(MIN_RATIO, next)) * 10_000) / 10_000;
}

/**
 * A TokenCounter from the estimate, scaled by a per-model calibration ratio that may change.
 * The raw estimate of each message object and tool list is kept (weakly), so a budget that
 * counts the same conversation again and again pays for each message once.
 */
export class EstimatingCounter implements TokenCounter {
  readonly #messages = new WeakMap<ChatMessage, { content: string; calls: unknown; tokens: number }>();
  readonly #tools = new WeakMap<readonly ToolSpec[], number>();

  constructor(private readonly ratio: () => number = () => 1) {}

  private scale(raw: number): number {
    return raw === 0 ? 0 : Math.ceil(raw * this.ratio());
  }

  countText(text: string): number {
    return this.scale(estimateTextTokens(text));
  }

  countMessage(message: ChatMessage): number {
    let known = this.#messages.get(message);
    // A message edited in place (a streamed reply growing) is counted again.
    if (!known || known.content !== message.content || known.calls !== message.toolCalls) {
      known = { content: message.content, calls: message.toolCalls, tokens: estimateMessageTokens(message) };
      this.#messages.set(message, known);
    }
    return this.scale(known.tokens);
  }

  countTools(tools: readonly ToolSpec[] | undefined): number {
    if (!tools) return 0;
    let known = this.#tools.get(tools);
    if (known === undefined) {
      known = estimateToolTokens(tools);
      this.#tools.set(tools, known);
    }
    return this.scale(known);
  }
}

/** A whole request as a counter sees it: every message, the tool schemas, and the reply's opening. */
export function countRequest(counter: TokenCounter, messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): number {
  let tokens = REPLY_PRIMING + counter.countTools(tools);
  for (const message of messages) tokens += counter.countMessage(message);
  return tokens;
}
