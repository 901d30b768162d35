// The test git server (tests/fixtures/gitServer.ts) driven by the git CLI: it must behave like a
// real smart-HTTP server, since the sync tests rely on its refusals.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../fixtures/gitServer';

const run = promisify(execFile);
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org', GIT_TERMINAL_PROMPT: '0' };
const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd, env: gitEnv })).stdout;

describe('test git server', () => {
  let server: GitServer;
  let work: string;
  beforeEach(async () => {
    server = await startGitServer();
    work = await mkdtemp(join(tmpdir(), 'knack-git-cli-'));
  });
  afterEach(async () => {
    await server.close();
    await rm(work, { recursive: true, force: true });
  });

  it('clones, takes a push a fresh clone sees, and refuses a non-fast-forward push', async () => {
    const repo = await server.createRepo('library');
    const a = join(work, 'a');
    const b = join(work, 'b');
    await git(work, 'clone', '--quiet', repo.url, a);
    await git(a, 'checkout', '--quiet', '-b', 'main');
    await writeFile(join(a, 'SKILL.md'), 'one\n');
    await git(a, 'add', '.');
    await git(a, 'commit', '--quiet', '-m', 'one');
    await git(a, 'push', '--quiet', 'origin', 'main');
    expect((await server.git(repo, 'log', '--format=%s', 'main')).trim()).toBe('one');

    await git(work, 'clone', '--quiet', '--branch', 'main', repo.url, b);
    await writeFile(join(b, 'SKILL.md'), 'from b\n');
    await git(b, 'commit', '--quiet', '-am', 'b');
    await git(b, 'push', '--quiet', 'origin', 'main');

    await writeFile(join(a, 'SKILL.md'), 'from a\n');
    await git(a, 'commit', '--quiet', '-am', 'a');
    await expect(git(a, 'push', 'origin', 'main')).rejects.toThrow(/rejected|non-fast-forward|fetch first/);
    expect((await server.git(repo, 'log', '--format=%s', 'main')).trim().split('\n')).toEqual(['b', 'one']);
    expect(server.requests.some((r) => r.path.includes('git-receive-pack') && r.method === 'POST' && r.status === 200)).toBe(true);
  });

  it('answers a preflight with CORS for the asking origin, or refuses it when told to', async () => {
    const repo = await server.createRepo('cors');
    const preflight = () =>
      fetch(`${repo.url}/info/refs?service=git-upload-pack`, {
        method: 'OPTIONS',
        headers: { origin: 'http://127.0.0.1:4173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    const allowed = await preflight();
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4173');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');

    const refs = await fetch(`${repo.url}/info/refs?service=git-upload-pack`, { headers: { origin: 'http://127.0.0.1:4173' } });
    expect(refs.status).toBe(200);
    expect(refs.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(refs.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4173');

    server.setCors('refuse');
    const refused = await preflight();
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('asks for the token when one is set', async () => {
    const guarded = await startGitServer({ token: 'secret-token' });
    try {
      const repo = await guarded.createRepo('private');
      const anonymous = await fetch(`${repo.url}/info/refs?service=git-upload-pack`);
      expect(anonymous.status).toBe(401);
      const withToken = await fetch(`${repo.url}/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from('knack:secret-token').toString('base64')}` },
      });
      expect(withToken.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
