import { beforeEach, describe, expect, it } from 'vitest';
import { FIRST_COMMIT_MARKER, GitHubTransport, normaliseRepositoryFolder, parseGitHubRepository, type GitHubPlace } from '../../src/sync/githubTransport';
import { RemoteMovedError, SyncPlaceError, type RemoteChange } from '../../src/sync/transport';
import { fetchThroughStandIn, startGitHubStandIn, type GitHubStandIn } from '../fixtures/githubStandIn';
import { githubStandInPerFile } from './helpers/githubStandInPerFile';

// The transport against the one GitHub stand-in (tests/fixtures/githubStandIn.ts): real HTTP and
// a real git repository, so the SHAs the transport sees are the ones GitHub would send.

let standIn: GitHubStandIn;
const sent: string[] = [];

githubStandInPerFile((started) => (standIn = started));
beforeEach(() => {
  sent.length = 0;
});

function transport(place: Partial<GitHubPlace> = {}): GitHubTransport {
  const through = fetchThroughStandIn(standIn);
  return new GitHubTransport(
    { owner: standIn.owner, repo: standIn.repo, branch: 'main', folder: '', token: standIn.token, ...place },
    {
      fetch: (input, init) => {
        sent.push(String(input));
        return through(input, init);
      },
    },
  );
}

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array | undefined) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

function change(expectedHead: string | null, writes: Record<string, string | Uint8Array>, deletes: string[] = []): RemoteChange {
  return {
    expectedHead,
    writes: new Map(Object.entries(writes).map(([path, content]) => [path, { bytes: typeof content === 'string' ? encode(content) : content, mode: 0o644 }])),
    deletes,
    message: 'Knack sync\n\n1 skill changed',
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('names', () => {
  it('reads owner/repo from what people paste', () => {
    expect(parseGitHubRepository('octo/skills')).toEqual({ owner: 'octo', repo: 'skills' });
    expect(parseGitHubRepository('https://github.com/octo/skills.git')).toEqual({ owner: 'octo', repo: 'skills' });
    expect(parseGitHubRepository('github.com/octo/my.skills/tree/main')).toEqual({ owner: 'octo', repo: 'my.skills' });
    expect(parseGitHubRepository('octo')).toBeNull();
    expect(parseGitHubRepository('https://gitlab.com/octo/skills')).toBeNull();
  });

  it('keeps the folder inside the repository', () => {
    expect(normaliseRepositoryFolder('/skills/')).toBe('skills/');
    expect(normaliseRepositoryFolder('')).toBe('');
    expect(normaliseRepositoryFolder('a/../..')).toBeNull();
    expect(() => transport({ folder: '../elsewhere' })).toThrow(SyncPlaceError);
  });
});

describe('an empty repository', () => {
  it('has no head, and its first commit goes through the contents API then createCommitOnBranch', async () => {
    const github = transport();
    expect(await github.readHead()).toBeNull();
    const head = await github.commit(change(null, { 'notes/SKILL.md': '---\nname: notes\n---\nBody\n' }));
    expect(head).toBe(await standIn.head('main'));
    expect(decode((await standIn.readFile('main', 'notes/SKILL.md')) ?? undefined)).toBe('---\nname: notes\n---\nBody\n');
    const tree = await github.readTree(head);
    expect([...tree.entries.keys()]).toEqual(['notes/SKILL.md']);
    expect(await standIn.listFiles('main')).toContain(FIRST_COMMIT_MARKER);
  });

  it('lets only one of two devices start the branch', async () => {
    const [a, b] = [transport(), transport()];
    const results = await Promise.allSettled([a.commit(change(null, { 'a/SKILL.md': 'A' })), b.commit(change(null, { 'b/SKILL.md': 'B' }))]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(RemoteMovedError);
    // The head the loser saw: the winner's first commit or its second, never nothing.
    expect((lost.reason as RemoteMovedError).actualHead).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('a repository without the branch', () => {
  it('creates the branch with the Git Data API, refusing when another device created it first', async () => {
    await standIn.push('main', { 'README.md': 'hello\n' });
    const github = transport({ branch: 'knack', folder: 'library' });
    expect(await github.readHead()).toBeNull();
    const binary = new Uint8Array([0, 1, 2, 255, 254]);
    const head = await github.commit(change(null, { 'tool/SKILL.md': 'tool\n', 'tool/assets/icon.bin': binary }));
    expect(await standIn.head('knack')).toBe(head);
    expect(await standIn.readFile('knack', 'library/tool/assets/icon.bin')).toEqual(Buffer.from(binary));
    // The loser of the race gets RemoteMovedError from POST git/refs' "Reference already exists".
    const error = await caught(transport({ branch: 'knack' }).commit(change(null, { 'x/SKILL.md': 'x' })));
    expect(error).toBeInstanceOf(RemoteMovedError);
    expect((error as RemoteMovedError).actualHead).toBe(head);
  });

  it('tells a branch that does not exist from a repository the token cannot see', async () => {
    await standIn.push('main', { 'README.md': 'hello\n' });
    const error = await caught(transport({ repo: 'not-there' }).readHead());
    expect(error).toBeInstanceOf(SyncPlaceError);
    expect((error as SyncPlaceError).problem).toBe('not-found');
    expect((error as SyncPlaceError).message).toContain('Contents: Read and write');
  });
});

describe('reading', () => {
  it('reads the head in one request and a tree in one more, inside the folder only', async () => {
    const head = await standIn.push('main', {
      'README.md': 'not a skill',
      'skills/git/SKILL.md': 'git',
      'skills/git/scripts/run.sh': '#!/bin/sh\n',
      'skills/.knack/records.json': '{}',
    });
    const github = transport({ folder: 'skills' });
    expect(await github.readHead()).toBe(head);
    expect(sent).toHaveLength(1);
    const tree = await github.readTree(head);
    expect(sent).toHaveLength(2); // GitHub names the folder's tree `<commit>:skills`
    expect([...tree.entries.keys()].sort()).toEqual(['.knack/records.json', 'git/SKILL.md', 'git/scripts/run.sh']);
    expect(tree.entries.get('git/SKILL.md')).toEqual({ id: '0899c2993dab9bdadd79689c1c3accc971096f18', mode: 0o644 });
  });

  it('reads a folder that is not there yet as an empty listing', async () => {
    const head = await standIn.push('main', { 'README.md': 'hello' });
    expect((await transport({ folder: 'skills/mine' }).readTree(head)).entries.size).toBe(0);
  });

  it('walks level by level where GitHub truncates the recursive listing', async () => {
    const limited = await startGitHubStandIn({ recursiveTreeLimit: 3 });
    try {
      const files: Record<string, string> = {};
      for (let index = 0; index < 6; index += 1) files[`skill-${index}/SKILL.md`] = `skill ${index}`;
      const head = await limited.push('main', files);
      const github = new GitHubTransport({ owner: limited.owner, repo: limited.repo, branch: 'main', folder: '', token: limited.token }, { fetch: fetchThroughStandIn(limited) });
      const tree = await github.readTree(head);
      expect(tree.entries.size).toBe(6);
    } finally {
      await limited.close();
    }
  });

  it('reads text files in one GraphQL query, byte-identical, and binary or large files as blobs', async () => {
    const large = await startGitHubStandIn({ blobTextLimit: 36 });
    try {
      const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 10, 0xff]);
      const texts = { 'a/SKILL.md': '\uFEFF---\nname: a\n---\r\nCRLF and é\n', 'b/SKILL.md': 'short' };
      const head = await large.push('main', { ...texts, 'a/icon.png': binary, 'b/long.md': 'x'.repeat(60) });
      const requests: string[] = [];
      const through = fetchThroughStandIn(large);
      const github = new GitHubTransport({ owner: large.owner, repo: large.repo, branch: 'main', folder: '', token: large.token }, {
        fetch: (input, init) => {
          requests.push(new URL(String(input)).pathname);
          return through(input, init);
        },
      });
      const files = await github.readFiles(head, ['a/SKILL.md', 'b/SKILL.md', 'a/icon.png', 'b/long.md']);
      expect(decode(files.get('a/SKILL.md'))).toBe(texts['a/SKILL.md']);
      expect(files.get('a/SKILL.md')!.slice(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
      expect(decode(files.get('b/SKILL.md'))).toBe('short');
      expect(files.get('a/icon.png')).toEqual(binary);
      expect(decode(files.get('b/long.md'))).toBe('x'.repeat(60));
      // One query for the four, then one blob each for the two GraphQL cannot give as text.
      expect(requests.filter((path) => path === '/graphql')).toHaveLength(1);
      expect(requests.filter((path) => path.includes('/git/blobs/'))).toHaveLength(2);
    } finally {
      await large.close();
    }
  });

  it('calls a missing path an error, never an empty file', async () => {
    const head = await standIn.push('main', { 'a/SKILL.md': 'a' });
    const error = await caught(transport().readFiles(head, ['a/SKILL.md', 'gone/SKILL.md']));
    expect(error).toBeInstanceOf(SyncPlaceError);
    expect((error as Error).message).toContain('gone/SKILL.md');
  });
});

describe('committing', () => {
  it('commits writes and deletions in one request with expectedHeadOid', async () => {
    const base = await standIn.push('main', { 'a/SKILL.md': 'a', 'b/SKILL.md': 'b', 'b/old.md': 'old' });
    const github = transport();
    sent.length = 0;
    const head = await github.commit(change(base, { 'a/SKILL.md': 'a, edited', 'c/SKILL.md': 'new' }, ['b/old.md']));
    expect(sent).toEqual(['https://api.github.com/graphql']);
    expect(await standIn.head('main')).toBe(head);
    expect((await standIn.listFiles('main')).sort()).toEqual(['a/SKILL.md', 'b/SKILL.md', 'c/SKILL.md']);
    expect(decode((await standIn.readFile('main', 'a/SKILL.md')) ?? undefined)).toBe('a, edited');
  });

  it('knows the listing after its own commit without asking, and it is the real one', async () => {
    const base = await standIn.push('main', { 'lib/a/SKILL.md': 'a', 'lib/b/SKILL.md': 'b' });
    const github = transport({ folder: 'lib' });
    await github.readTree(base);
    const head = await github.commit(change(base, { 'a/SKILL.md': 'a2', 'c/run.sh': new Uint8Array([0, 1]) }, ['b/SKILL.md']));
    sent.length = 0;
    const known = await github.readTree(head);
    expect(sent).toEqual([]);
    expect(known.entries).toEqual((await transport({ folder: 'lib' }).readTree(head)).entries);
  });

  it('refuses a commit on a branch that moved, writing nothing', async () => {
    const base = await standIn.push('main', { 'a/SKILL.md': 'a' });
    const moved = await standIn.push('main', { 'b/SKILL.md': 'from the other device' });
    const error = await caught(transport().commit(change(base, { 'a/SKILL.md': 'mine' })));
    expect(error).toBeInstanceOf(RemoteMovedError);
    expect((error as RemoteMovedError).actualHead).toBe(moved);
    expect(await standIn.head('main')).toBe(moved);
    expect(decode((await standIn.readFile('main', 'a/SKILL.md')) ?? undefined)).toBe('a');
  });

  it('lets exactly one of two racing commits land', async () => {
    const base = await standIn.push('main', { 'a/SKILL.md': 'a' });
    const results = await Promise.allSettled([transport().commit(change(base, { 'a/SKILL.md': 'one' })), transport().commit(change(base, { 'b/SKILL.md': 'two' }))]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(RemoteMovedError);
  });
});

describe('errors a user can act on', () => {
  it('says which permission a read-only token lacks', async () => {
    const base = await standIn.push('main', { 'a/SKILL.md': 'a' });
    const github = transport({ token: standIn.readOnlyToken });
    expect(await github.readHead()).toBe(base);
    const error = (await caught(github.commit(change(base, { 'a/SKILL.md': 'b' })))) as SyncPlaceError;
    expect(error.problem).toBe('auth');
    expect(error.message).toContain('Contents: Read and write');
    expect(error.message).toContain(`${standIn.owner}/${standIn.repo}`);
  });

  it('says a wrong token is wrong', async () => {
    const error = (await caught(transport({ token: 'github_pat_wrong' }).readHead())) as SyncPlaceError;
    expect(error.problem).toBe('auth');
    expect(error.message).toMatch(/wrong, expired or revoked/);
  });

  it('gives the reset time of a used-up rate limit', async () => {
    standIn.rateLimited = true;
    const error = (await caught(transport().readHead())) as SyncPlaceError;
    expect(error.problem).toBe('rate-limit');
    expect(error.resetAt).toBe(new Date(standIn.rateLimitReset * 1000).toISOString());
  });

  it('says when api.github.com cannot be reached', async () => {
    const github = new GitHubTransport({ owner: 'o', repo: 'r', branch: 'main', folder: '', token: 't' }, { fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
    const error = (await caught(github.readHead())) as SyncPlaceError;
    expect(error).toBeInstanceOf(SyncPlaceError);
    expect(['cors', 'offline']).toContain(error.problem);
    expect(error.message).toContain('api.github.com');
  });
});
