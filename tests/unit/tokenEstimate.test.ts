import { beforeAll, describe, expect, it } from 'vitest';
import { countRequest, EstimatingCounter, estimateMessageTokens, estimateTextTokens, estimateToolTokens, MAX_RATIO, MESSAGE_OVERHEAD, MIN_RATIO, nextRatio, REPLY_PRIMING } from '../../src/providers/tokenEstimate';
import { QwenCounter } from '../fixtures/qwenPrompt';
import { estimatorError, type EstimatorErrorReport } from '../fixtures/estimatorError';
import { knackToolSpecs } from './helpers/knackToolSpecs';

// The bounds: on the chat corpus (tests/fixtures/chatCorpus.ts) with Knack's real tool schemas,
// a whole request's estimate is within 10 % of Qwen3's real count before calibration and
// within 4 % once calibrated from earlier requests of the same chat (measured: ~5 % and ~2 %
// at most; docs/context-window.md, "Counting").
const UNCALIBRATED_MAX_PCT = 10;
const CALIBRATED_MAX_PCT = 4;
const CALIBRATED_MEAN_PCT = 2;

describe('the estimate against Qwen3’s tokenizer', () => {
  let report: EstimatorErrorReport;
  beforeAll(async () => {
    report = estimatorError(await QwenCounter.create(), await knackToolSpecs());
  }, 30_000);

  it(`whole requests: within ${UNCALIBRATED_MAX_PCT} % uncalibrated`, () => {
    expect(report.requests.before.n).toBeGreaterThan(15);
    expect(report.requests.before.maxPct).toBeLessThanOrEqual(UNCALIBRATED_MAX_PCT);
  });

  it(`whole requests: within ${CALIBRATED_MAX_PCT} % (mean ${CALIBRATED_MEAN_PCT} %) once calibrated from the server's counts`, () => {
    expect(report.requests.after.maxPct).toBeLessThanOrEqual(CALIBRATED_MAX_PCT);
    expect(report.requests.after.meanPct).toBeLessThanOrEqual(CALIBRATED_MEAN_PCT);
    expect(report.requests.after.maxPct).toBeLessThanOrEqual(report.requests.before.maxPct);
  });
});

describe('estimateTextTokens', () => {
  it('counts nothing for nothing, and something for every kind of text', () => {
    expect(estimateTextTokens('')).toBe(0);
    for (const text of ['hello', '12345', '{"a":1}', '你好世界', 'Привет', '🙂', '\n\n']) expect(estimateTextTokens(text)).toBeGreaterThan(0);
  });

  it('counts digits one each (Qwen and Llama 3 split numbers into digits or short groups)', () => {
    expect(estimateTextTokens('2026')).toBe(4);
  });

  it('grows with the text', () => {
    expect(estimateTextTokens('word '.repeat(200))).toBeGreaterThan(estimateTextTokens('word '.repeat(100)));
  });
});

describe('messages and tools', () => {
  it('frames each message; tool calls and results add their tags', () => {
    expect(estimateMessageTokens({ role: 'user', content: '' })).toBe(MESSAGE_OVERHEAD);
    const call = estimateMessageTokens({ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'memory', arguments: '{"action":"add"}' }] });
    expect(call).toBeGreaterThan(MESSAGE_OVERHEAD + estimateTextTokens('{"action":"add"}'));
    expect(estimateMessageTokens({ role: 'tool', content: 'ok', toolCallId: 'c' })).toBeGreaterThan(estimateMessageTokens({ role: 'user', content: 'ok' }));
  });

  it('no tools cost nothing; each tool costs its schema', () => {
    expect(estimateToolTokens(undefined)).toBe(0);
    expect(estimateToolTokens([])).toBe(0);
    const one = estimateToolTokens([{ name: 'a', description: 'Does a.', parameters: { type: 'object' } }]);
    const two = estimateToolTokens([
      { name: 'a', description: 'Does a.', parameters: { type: 'object' } },
      { name: 'b', description: 'Does b.', parameters: { type: 'object' } },
    ]);
    expect(two).toBeGreaterThan(one);
  });

  it("keeps each message object's estimate, and counts a message edited in place again", () => {
    const counter = new EstimatingCounter();
    const message = { role: 'assistant' as const, content: 'short' };
    const first = counter.countMessage(message);
    expect(counter.countMessage(message)).toBe(first);
    message.content = 'a much longer reply than before, with many more words in it';
    expect(counter.countMessage(message)).toBeGreaterThan(first);
  });

  it('countRequest adds the reply priming to the messages and tools', () => {
    const counter = new EstimatingCounter();
    const messages = [{ role: 'user' as const, content: 'hi' }];
    expect(countRequest(counter, messages)).toBe(REPLY_PRIMING + counter.countMessage(messages[0]));
  });
});

describe('calibration', () => {
  it('scales every count by the current ratio', () => {
    let ratio = 1;
    const counter = new EstimatingCounter(() => ratio);
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const base = counter.countText(text);
    ratio = 1.5;
    expect(counter.countText(text)).toBe(Math.ceil(estimateTextTokens(text) * 1.5));
    expect(counter.countText(text)).toBeGreaterThan(base);
  });

  it('takes the first observation whole, then averages later ones in', () => {
    const first = nextRatio(1, 0, 1000, 1200);
    expect(first).toBeCloseTo(1.2);
    const second = nextRatio(first, 1, 1200, 1200);
    expect(second).toBeCloseTo(1.2);
    const odd = nextRatio(1.2, 10, 1200, 2400);
    expect(odd).toBeGreaterThan(1.2);
    expect(odd).toBeLessThan(1.6);
  });

  it('is bounded, and ignores requests too small to teach or figures that make no sense', () => {
    expect(nextRatio(1, 0, 1000, 100_000)).toBe(MAX_RATIO);
    expect(nextRatio(1, 0, 1000, 1)).toBe(MIN_RATIO);
    expect(nextRatio(1.1, 3, 20, 200)).toBe(1.1);
    expect(nextRatio(1.1, 3, 1000, 0)).toBe(1.1);
    expect(nextRatio(1.1, 3, 1000, Number.NaN)).toBe(1.1);
  });
});
