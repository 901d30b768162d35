/** The install network's rules (docs/install.md, "Limits"), on a real local server. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InstallError, InstallNetwork, resetTime } from '../../../src/install/installNetwork';

let server: http.Server;
let base: string;
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
const seen: Array<string | undefined> = [];

beforeEach(async () => {
  seen.length = 0;
  server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const hosts = () => ({ githubApi: base, githubRaw: 'http://127.0.0.1:1', clawhubApi: 'http://127.0.0.1:2/api/v1' });

describe('InstallNetwork', () => {
  it('refuses a host the user did not name, without a request', async () => {
    answer = (_req, res) => res.end('ok');
    const network = new InstallNetwork([base], { hosts: hosts() });
    const error = (await network.get('http://127.0.0.1:9/x').catch((e: unknown) => e)) as InstallError;
    expect(error.code).toBe('host');
    expect(error.message).toContain('a host you did not name');
    expect(seen).toEqual([]);
    expect(network.requests).toBe(0);
  });

  it('sends the token only to the GitHub API origin', async () => {
    answer = (_req, res) => res.end('ok');
    const api = new InstallNetwork([base], { hosts: hosts(), githubToken: () => 'tok' });
    await api.get(`${base}/a`);
    const other = new InstallNetwork([base], { hosts: { ...hosts(), githubApi: 'https://api.github.com' }, githubToken: () => 'tok' });
    await other.get(`${base}/b`);
    expect(seen).toEqual(['Bearer tok', undefined]);
  });

  it('says when a secondary rate limit asks to wait, and when a token is refused', async () => {
    answer = (req, res) => {
      if (req.url === '/secondary') res.writeHead(429, { 'retry-after': '30' }).end('slow down');
      else res.writeHead(401).end('{"message":"Bad credentials"}');
    };
    const network = new InstallNetwork([base], { hosts: hosts() });
    await expect(network.get(`${base}/secondary`)).rejects.toThrow('Try again in 30 seconds.');
    await expect(network.get(`${base}/token`)).rejects.toThrow('refused the token (401)');
  });

  it('refuses a body over the limit and a reply that is not JSON', async () => {
    answer = (req, res) => res.end(req.url === '/big' ? 'x'.repeat(2000) : 'not json');
    const network = new InstallNetwork([base], { hosts: hosts() });
    await expect(network.get(`${base}/big`, { maxBytes: 1000 })).rejects.toThrow('the limit is 1000');
    await expect(network.getJson(`${base}/text`)).rejects.toThrow('did not answer with JSON');
    expect(network.requests).toBe(2);
  });
});

describe('resetTime', () => {
  it('gives the local clock time and the minutes left', () => {
    const now = Date.UTC(2026, 11, 6, 6, 0, 0);
    const text = resetTime(String(now / 1000 + 90), now)!;
    expect(text).toMatch(/^\d\d:\d\d \(in 2 minutes\)$/);
    expect(resetTime(null)).toBeNull();
    expect(resetTime('soon')).toBeNull();
  });
});
