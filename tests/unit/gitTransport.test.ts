// The git transport against the real test git server (git http-backend): commits land where the
// git CLI sees them, a stale push is refused as RemoteMovedError, refusals speak plainly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../fixtures/gitServer';
import { GitTransport, type GitPlaceConfig } from '../../src/sync/gitTransport';
import { RemoteMovedError, SyncPlaceError } from '../../src/sync/transport';

const text = (value: string) => new TextEncoder().encode(value);
const APP = 'http://127.0.0.1:4173';

describe('GitTransport', () => {
  let server: GitServer;
  beforeEach(async () => {
    server = await startGitServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const place = (url: string, extra: Partial<GitPlaceConfig> = {}) =>
    new GitTransport({ url, branch: 'main', folder: '', token: '', appOrigin: APP, ...extra });

  it('writes a first commit to an empty repository, reads it back, and refuses a stale push', async () => {
    const repo = await server.createRepo('library');
    const phone = place(repo.url);
    expect(await phone.readHead()).toBeNull();
    const first = await phone.commit({
      expectedHead: null,
      writes: new Map([
        ['pdf/SKILL.md', { bytes: text('---\nname: pdf\n---\nUse it.\n'), mode: 0o644 }],
        ['pdf/scripts/run.sh', { bytes: text('#!/bin/sh\necho hi\n'), mode: 0o755 }],
        ['.knack/skills/pdf.json', { bytes: text('{}'), mode: 0o644 }],
      ]),
      deletes: [],
      message: 'Knack sync',
    });
    expect((await server.git(repo, 'rev-parse', 'main')).trim()).toBe(first);
    expect(await server.git(repo, 'ls-tree', '-r', 'main')).toMatch(/100755 blob \w+\tpdf\/scripts\/run\.sh/);
    expect(await server.git(repo, 'show', 'main:pdf/SKILL.md')).toBe('---\nname: pdf\n---\nUse it.\n');

    const laptop = place(repo.url);
    expect(await laptop.readHead()).toBe(first);
    const tree = await laptop.readTree(first);
    expect([...tree.entries.keys()].sort()).toEqual(['.knack/skills/pdf.json', 'pdf/SKILL.md', 'pdf/scripts/run.sh']);
    expect(tree.entries.get('pdf/scripts/run.sh')?.mode).toBe(0o755);
    const files = await laptop.readFiles(first, ['pdf/SKILL.md']);
    expect(new TextDecoder().decode(files.get('pdf/SKILL.md'))).toContain('Use it.');

    const second = await laptop.commit({ expectedHead: first, writes: new Map([['csv/SKILL.md', { bytes: text('csv'), mode: 0o644 }]]), deletes: ['pdf/scripts/run.sh'], message: 'two' });
    expect(await server.git(repo, 'ls-tree', '-r', '--name-only', 'main')).toBe('.knack/skills/pdf.json\ncsv/SKILL.md\npdf/SKILL.md\n');

    // The phone still thinks the head is `first`: its push must not land.
    const stale = phone.commit({ expectedHead: first, writes: new Map([['pdf/SKILL.md', { bytes: text('lost?'), mode: 0o644 }]]), deletes: [], message: 'stale' });
    await expect(stale).rejects.toBeInstanceOf(RemoteMovedError);
    await expect(stale).rejects.toMatchObject({ actualHead: second });
    expect((await server.git(repo, 'rev-parse', 'main')).trim()).toBe(second);
    // And an empty-remote commit onto a branch that now exists is refused too.
    await expect(place(repo.url).commit({ expectedHead: null, writes: new Map([['x/SKILL.md', { bytes: text('x'), mode: 0o644 }]]), deletes: [], message: 'x' })).rejects.toBeInstanceOf(RemoteMovedError);
  });

  it('keeps the library in its folder and leaves the rest of the repository alone', async () => {
    const repo = await server.createRepo('mixed');
    const root = place(repo.url);
    const head = await root.commit({ expectedHead: null, writes: new Map([['README.md', { bytes: text('mine'), mode: 0o644 }]]), deletes: [], message: 'readme' });
    const inFolder = place(repo.url, { folder: 'agents/skills' });
    expect((await inFolder.readTree(head)).entries.size).toBe(0);
    const next = await inFolder.commit({ expectedHead: head, writes: new Map([['pdf/SKILL.md', { bytes: text('pdf'), mode: 0o644 }]]), deletes: [], message: 'in folder' });
    expect(await server.git(repo, 'ls-tree', '-r', '--name-only', 'main')).toBe('README.md\nagents/skills/pdf/SKILL.md\n');
    expect([...(await place(repo.url, { folder: 'agents/skills' }).readTree(next)).entries.keys()]).toEqual(['pdf/SKILL.md']);
    expect(() => place(repo.url, { folder: '../up' })).toThrow(SyncPlaceError);
  });

  it('counts one request for the head, and says what to do when refused or unreachable', async () => {
    const repo = await server.createRepo('counted');
    const requests: string[] = [];
    const counted = place(repo.url, { onRequest: ({ url }) => requests.push(url) });
    await counted.readHead();
    expect(requests).toHaveLength(1);

    const guarded = await startGitServer({ token: 'right' });
    try {
      const privateRepo = await guarded.createRepo('private');
      await expect(place(privateRepo.url, { token: 'wrong' }).readHead()).rejects.toMatchObject({ problem: 'auth' });
      expect(await place(privateRepo.url, { token: 'right' }).readHead()).toBeNull();
    } finally {
      await guarded.close();
    }
    const gone = place('http://127.0.0.1:9/nothing.git');
    await expect(gone.readHead()).rejects.toMatchObject({ problem: 'cors', message: expect.stringContaining(`[repository] ACCESS_CONTROL_ALLOW_ORIGIN = ${APP}`) });
  });
});
