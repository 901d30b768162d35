/**
 * A deterministic synthetic chat corpus for the session-search benchmarks (the Vitest
 * micro-benchmark in tests/unit/sessionSearch.test.ts and sessionSearch.bench.ts in the page).
 * Word frequencies are skewed like natural text (a few very common words, a long tail of rare
 * ones), so queries hit anything from a handful of messages to tens of thousands.
 */
import type { ChatMessage, ChatSession } from '../../src/sessions/sessionStore';

/** mulberry32: small, fast, seedable. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The head of the distribution: function words first (as in English), then everyday tech words. */
const COMMON = (
  'the a to and of is in it you that for on with this be can i its are was not have but what if or ' +
  'do so as at my your we an by from will just how there they all one would about which when use ' +
  'run file code error test build install docker python config server git branch commit deploy ' +
  'database query api key user model memory skill session function value type import export path ' +
  'network port request response cache'
).split(' ');
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'shi', 'pre', 'con', 'dex', 'bar', 'lin', 'tor', 'qua', 'zen', 'fi', 'gle', 'mon', 'ster'];

export function vocabulary(size: number, random: () => number): string[] {
  const words = new Set(COMMON);
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

export interface Corpus {
  sessions: ChatSession[];
  messages: ChatMessage[];
  vocabulary: string[];
  /** Queries of every kind: common, mid-frequency and rare words, pairs, and prefixes. */
  queries: string[];
}

export function buildCorpus(messageCount: number, options: { perSession?: number; seed?: number; queryCount?: number } = {}): Corpus {
  const random = seededRandom(options.seed ?? 42);
  const words = vocabulary(20_000, random);
  // Zipf's law (s = 1), as in natural text: the word of rank r has weight 1/r.
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let r = 0; r < words.length; r++) cumulative[r] = total += 1 / (r + 1);
  const pick = () => {
    const u = random() * total;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  const perSession = options.perSession ?? 50;
  const sessions: ChatSession[] = [];
  const messages: ChatMessage[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < messageCount; i++) {
    const s = Math.floor(i / perSession);
    if (!sessions[s]) {
      sessions[s] = {
        id: `s${String(s).padStart(6, '0')}`,
        title: `Session ${s} about ${pick()}`,
        createdAt: start + s * 60_000,
        updatedAt: start + s * 60_000 + perSession * 1000,
        messageCount: 0,
        itersSinceSkill: 0,
        turnsSinceMemory: 0,
        snapshot: null,
      };
    }
    const length = 8 + Math.floor(random() * 50);
    const text: string[] = [];
    for (let w = 0; w < length; w++) text.push(pick());
    messages.push({
      id: `m${String(i).padStart(7, '0')}`,
      sessionId: sessions[s]!.id,
      seq: i % perSession,
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `${text.join(' ')}.`,
      createdAt: sessions[s]!.createdAt + (i % perSession) * 1000,
    });
    sessions[s]!.messageCount++;
  }
  const queries: string[] = [];
  const queryCount = options.queryCount ?? 200;
  const at = (lo: number, hi: number) => words[lo + Math.floor(random() * (hi - lo))]!;
  for (let q = 0; q < queryCount; q++) {
    switch (q % 5) {
      case 0:
        queries.push(at(COMMON.length, COMMON.length + 200)); // the most common content words
        break;
      case 1:
        queries.push(at(500, 3000));
        break;
      case 2:
        queries.push(at(8000, 20_000)); // rare
        break;
      case 3:
        queries.push(`${at(COMMON.length, 500)} ${at(500, 5000)}`);
        break;
      default:
        queries.push(at(1000, 10_000).slice(0, 5)); // a word being typed
    }
  }
  return { sessions, messages, vocabulary: words, queries };
}
