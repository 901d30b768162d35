import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fetchFailure, httpError, parseRetryAfter, probeReachability, rejectedSamplingParam, serverMessage } from '../../src/providers/providerErrors';
import { PROVIDER_PRESETS, presetForBaseUrl } from '../../src/providers/presets';
import { PRESETS as UI_PRESETS } from '../../src/ui/state/settingsModel';

// Node's fetch never fails for CORS, so the wording of CORS and network failures is tested
// here on the mapping functions; tests/browser/provider.spec.ts sees a real CORS refusal.

const origin = 'https://knack.example';

describe('fetch failures (CORS or down)', () => {
  it('reachable → kind cors, with the exact Ollama setting and a restart', () => {
    const error = fetchFailure({ baseUrl: 'http://localhost:11434/v1', origin }, 'reachable');
    expect(error.kind).toBe('cors');
    expect(error.message).toContain('answered');
    expect(error.message).toContain(origin);
    expect(error.hint).toContain(`OLLAMA_ORIGINS=${origin}`);
    expect(error.hint).toMatch(/restart Ollama/);
  });

  it('LM Studio: the Enable CORS switch or lms server start --cors', () => {
    const error = fetchFailure({ baseUrl: 'http://localhost:1234/v1', origin }, 'reachable');
    expect(error.hint).toContain('"Enable CORS"');
    expect(error.hint).toContain('lms server start --cors');
  });

  it('llama.cpp: --cors-origins with this origin (allowed by default otherwise)', () => {
    const error = fetchFailure({ baseUrl: 'http://localhost:8080/v1', origin }, 'reachable');
    expect(error.hint).toContain(`--cors-origins ${origin}`);
    expect(error.hint).toMatch(/every origin unless/);
  });

  it.each(['https://api.openai.com/v1', 'https://openrouter.ai/api/v1'])('hosted %s: check the URL and the network', (baseUrl) => {
    const error = fetchFailure({ baseUrl, origin }, 'unknown');
    expect(error.kind).toBe('network');
    expect(error.hint).toMatch(/Base URL and your network connection/);
    expect(error.hint).toMatch(/content blocker/);
  });

  it('custom servers: the Access-Control-Allow-Origin header for this origin', () => {
    const error = fetchFailure({ baseUrl: 'http://10.0.0.5:9000/v1', origin: 'http://localhost:4173' }, 'reachable');
    expect(error.hint).toContain('Access-Control-Allow-Origin: http://localhost:4173');
  });

  it('unknown reachability names both possibilities and both fixes', () => {
    const error = fetchFailure({ baseUrl: 'http://localhost:11434/v1', origin }, 'unknown');
    expect(error.message).toMatch(/not running.*or.*does not allow requests from https:\/\/knack\.example \(CORS\)/);
    expect(error.hint).toMatch(/ollama serve/);
    expect(error.hint).toContain(`OLLAMA_ORIGINS=${origin}`);
  });

  it('unreachable says nothing answered and how to start the server', () => {
    const error = fetchFailure({ baseUrl: 'http://localhost:1234/v1', origin }, 'unreachable');
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/nothing answered/);
    expect(error.hint).toMatch(/Start the LM Studio server/);
  });

  it('an explicit preset wins over the URL (Ollama on another port)', () => {
    const error = fetchFailure({ baseUrl: 'http://gpu-box:9999/v1', presetId: 'ollama', origin }, 'reachable');
    expect(error.hint).toContain('OLLAMA_ORIGINS');
  });

  it('an https page calling a plain-http LAN server is told about mixed content', () => {
    const error = fetchFailure({ baseUrl: 'http://192.168.1.20:11434/v1', origin }, 'unknown');
    expect(error.hint).toMatch(/plain-http addresses other than localhost/);
    const loopback = fetchFailure({ baseUrl: 'http://127.0.0.1:11434/v1', origin }, 'unknown');
    expect(loopback.hint).not.toMatch(/plain-http/);
  });
});

describe('HTTP status mapping', () => {
  const context = { baseUrl: 'https://openrouter.ai/api/v1/', model: 'meta/llama' };
  it.each<[number, string]>([
    [401, 'auth'],
    [403, 'auth'],
    [404, 'bad-request'],
    [400, 'bad-request'],
    [422, 'bad-request'],
    [429, 'rate-limit'],
    [408, 'server'],
    [500, 'server'],
    [502, 'server'],
  ])('%i → %s, naming the server without a trailing slash', (status, kind) => {
    const error = httpError(status, '', context);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.message).toContain('https://openrouter.ai/api/v1 ');
    expect(error.hint).not.toBe('');
  });

  it('reads the server message from the usual error shapes', () => {
    expect(serverMessage('{"error":{"message":"bad key","type":"x"}}')).toBe('bad key');
    expect(serverMessage('{"error":"model not found"}')).toBe('model not found');
    expect(serverMessage('{"detail":"Not Found"}')).toBe('Not Found');
    expect(serverMessage('<!DOCTYPE html><html></html>')).toBe('');
    expect(serverMessage('x'.repeat(1000)).length).toBeLessThan(310);
  });
});

describe('details a retrying caller reads', () => {
  const context = { baseUrl: 'https://api.openai.com/v1', model: 'o3-mini' };

  it('parses Retry-After as seconds or as an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
  });

  it.each<[string, 'temperature' | 'seed' | undefined]>([
    ["Unsupported parameter: 'temperature' is not supported with this model.", 'temperature'],
    ["Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", 'temperature'],
    ["Unsupported parameter: 'seed'", 'seed'],
    ['seed is not supported by this endpoint', 'seed'],
    ['Unrecognized request argument supplied: seed', 'seed'],
    ["This model's maximum context length is 8192 tokens", undefined],
    ['The temperature is nice today', undefined],
    ['Invalid model name', undefined],
  ])('"%s" → %s', (message, param) => {
    expect(rejectedSamplingParam(message)).toBe(param);
  });

  it('httpError carries rejectedParam, contextTooLong and retryAfterMs', () => {
    const rejected = httpError(400, JSON.stringify({ error: { message: "Unsupported parameter: 'temperature'" } }), context);
    expect(rejected.rejectedParam).toBe('temperature');
    expect(rejected.details).toEqual({ rejectedParam: 'temperature' });
    const tooLong = httpError(400, JSON.stringify({ error: { message: 'Prompt is too long: 9000 tokens > 8192' } }), context);
    expect(tooLong.contextTooLong).toBe(true);
    expect(tooLong.rejectedParam).toBeUndefined();
    expect(httpError(429, '', context, '12').retryAfterMs).toBe(12000);
    expect(httpError(503, '', context, '4').retryAfterMs).toBe(4000);
    expect(httpError(502, '', context, '4').retryAfterMs).toBeUndefined();
    expect(httpError(400, 'nope', context).details).toEqual({});
  });
});

describe('presets', () => {
  it('has every preset of SPEC §12.1 with its default URL', () => {
    expect(PROVIDER_PRESETS.map((preset) => [preset.id, preset.baseUrl])).toEqual([
      ['ollama', 'http://localhost:11434/v1'],
      ['lm-studio', 'http://localhost:1234/v1'],
      ['llama-cpp', 'http://localhost:8080/v1'],
      ['openai', 'https://api.openai.com/v1'],
      ['openrouter', 'https://openrouter.ai/api/v1'],
      ['custom', ''],
    ]);
  });

  it('agrees with the Settings screen presets (ids, labels, URLs)', () => {
    expect(PROVIDER_PRESETS.map(({ id, label, baseUrl }) => ({ id, label, baseUrl }))).toEqual(
      UI_PRESETS.map(({ id, label, baseUrl }) => ({ id, label, baseUrl })),
    );
  });

  it('finds the preset of a URL by exact match, host or well-known port', () => {
    expect(presetForBaseUrl('http://localhost:11434/v1/').id).toBe('ollama');
    expect(presetForBaseUrl('http://192.168.1.9:11434/v1').id).toBe('ollama');
    expect(presetForBaseUrl('http://127.0.0.1:1234/v1').id).toBe('lm-studio');
    expect(presetForBaseUrl('https://api.openai.com/v1').id).toBe('openai');
    expect(presetForBaseUrl('http://example.test/v1').id).toBe('custom');
    expect(presetForBaseUrl('not a url').id).toBe('custom');
  });
});

describe('reachability probe', () => {
  it('is reachable when anything answers, unreachable when nothing listens, and sends no key', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const target = http.createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(403);
      res.end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1`;
    expect(await probeReachability(baseUrl)).toBe('reachable');
    expect(seen).toHaveLength(1);
    expect(seen[0].authorization).toBeUndefined();
    await new Promise<void>((resolve) => target.close(() => resolve()));
    expect(await probeReachability(baseUrl)).toBe('unreachable');
  });

  it('gives up as unknown when the server never answers', async () => {
    const silent = http.createServer(() => {
      // never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    try {
      expect(await probeReachability(baseUrl, fetch, undefined, 50)).toBe('unknown');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
