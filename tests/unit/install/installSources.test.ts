/**
 * Each install source against the rig's real HTTP servers (tests/fixtures/installRig.ts; the
 * GitHub hosts are the one stand-in, serving a repository built by real git).
 */
import { describe, expect, it } from 'vitest';
import { lookUpLink } from '../../../src/install/installFromLink';
import { createReadUpstream } from '../../../src/install/upstream';
import { InstallError, type InstallNetworkOptions } from '../../../src/install/installNetwork';
import { skillContentHash, type InstalledSource } from '../../../src/skills/installedSource';
import { FIXTURE_OWNER, FIXTURE_REPO, GOOD_TOKEN, type InstallRig } from '../../fixtures/installRig';
import { installRigPerTest } from '../helpers/installRigPerTest';

let rig: InstallRig;
let options: InstallNetworkOptions;
installRigPerTest((current) => ({ rig, options } = current));

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

// The core builds GitHub links from the owner and repository; the rig's API host stands in for api.github.com.
const repoLink = `https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}`;

describe('GitHub source', () => {
  it('lists with one commit and ONE trees request, fetches raw files at the commit, keeps nesting and modes', async () => {
    const found = await lookUpLink(repoLink, options);
    const api = rig.requests.filter((r) => r.host === 'githubApi');
    expect(api.map((r) => r.path)).toEqual([`/repos/${FIXTURE_OWNER}/${FIXTURE_REPO}/commits/HEAD`, `/repos/${FIXTURE_OWNER}/${FIXTURE_REPO}/git/trees/${rig.repo.commit}?recursive=1`]);
    const raw = rig.requests.filter((r) => r.host === 'githubRaw');
    expect(raw.every((r) => r.path.startsWith(`/${FIXTURE_OWNER}/${FIXTURE_REPO}/${rig.repo.commit}/skills/`))).toBe(true);
    // README.md is no skill's file, so it is never fetched.
    expect(raw.some((r) => r.path.endsWith('README.md'))).toBe(false);
    const names = found.plan.skills.map((skill) => skill.name).sort();
    expect(names).toEqual(['parent', 'pdf-tools', 'skill-1', 'skill-2', 'skill-3']);
    const parent = found.plan.skills.find((skill) => skill.name === 'parent')!;
    expect(parent.nestedSkills).toEqual(['child']);
    expect(parent.files.map((file) => file.path).sort()).toEqual(['SKILL.md', 'child/SKILL.md']);
    const pdf = found.plan.skills.find((skill) => skill.name === 'pdf-tools')!;
    expect(pdf.files.find((file) => file.path === 'scripts/fill.sh')).toMatchObject({ mode: 0o755, executable: true });
    expect(pdf.files.find((file) => file.path === 'SKILL.md')).toMatchObject({ mode: 0o644 });
    expect(pdf.warnings.join('\n')).toContain("'skills/pdf-tools/guide-link.md' was not imported: symbolic link");
    expect(text(pdf.files.find((file) => file.path === 'evals/evals.json')?.bytes)).toContain('pdf-tools 1: write the release note line');
    const source = found.sources[pdf.id]!;
    const folderTree = rig.repo.tree.find((entry) => entry.path === 'skills/pdf-tools')!.sha;
    expect(source).toMatchObject({ kind: 'github', sourceKey: `github:${FIXTURE_OWNER}/${FIXTURE_REPO}@HEAD`, path: 'skills/pdf-tools', revision: rig.repo.commit, upstreamDigest: `git-tree:${folderTree}`, url: `${repoLink}/tree/HEAD/skills/pdf-tools` });
    const maps = { files: new Map(pdf.files.map((f) => [f.path, f.bytes])), modes: new Map(pdf.files.map((f) => [f.path, f.mode ?? 0o644])) };
    expect(source.installedHash).toBe(await skillContentHash(maps.files, maps.modes));
  });

  it('installs one folder from a /tree/ link and one skill from a /blob/ SKILL.md link', async () => {
    const folder = await lookUpLink(`${repoLink}/tree/main/skills/skill-2`, options);
    expect(folder.plan.skills.map((s) => s.name)).toEqual(['skill-2']);
    expect(Object.values(folder.sources)[0]).toMatchObject({ sourceKey: `github:${FIXTURE_OWNER}/${FIXTURE_REPO}@main`, path: 'skills/skill-2' });
    const blob = await lookUpLink(`${repoLink}/blob/main/skills/parent/SKILL.md`, options);
    expect(blob.plan.skills.map((s) => s.name)).toEqual(['parent']);
  });

  it('sends the token to the API host only, never to the raw host', async () => {
    await lookUpLink(repoLink, { ...options, githubToken: () => GOOD_TOKEN });
    expect(rig.requests.filter((r) => r.host === 'githubApi').every((r) => r.authorization === `Bearer ${GOOD_TOKEN}`)).toBe(true);
    expect(rig.requests.filter((r) => r.host === 'githubRaw').every((r) => r.authorization === null)).toBe(true);
  });

  it('says when the rate limit is spent, with the reset time and the token advice', async () => {
    rig.setRateRemaining(0);
    const error = (await lookUpLink(repoLink, options).catch((e: unknown) => e)) as InstallError;
    expect(error).toBeInstanceOf(InstallError);
    expect(error.code).toBe('rate-limit');
    expect(error.message).toMatch(/rate limit reached.*It resets at \d\d:\d\d \(in \d+ minutes?\)/);
    expect(error.message).toContain('fine-grained GitHub token');
  });

  it('reads the upstream of an installed skill with the same two requests, and fetches its files', async () => {
    const found = await lookUpLink(repoLink, options);
    const pdf = found.plan.skills.find((skill) => skill.name === 'pdf-tools')!;
    const source: InstalledSource = { ...found.sources[pdf.id]!, installedAt: '2026-12-06T00:00:00.000Z' };
    const before = rig.requests.length;
    const listing = await createReadUpstream(options)(source);
    expect(rig.requests.slice(before).map((r) => r.host)).toEqual(['githubApi', 'githubApi']);
    expect(listing.sourceKey).toBe(source.sourceKey);
    expect([...listing.skills.keys()]).toContain('skills/parent/child');
    const upstream = listing.skills.get('skills/pdf-tools')!;
    expect(upstream.upstreamDigest).toBe(source.upstreamDigest);
    const fetched = await upstream.fetchFiles();
    expect(await skillContentHash(fetched.files, fetched.modes)).toBe(source.installedHash);
    const newCommit = rig.repo.commitChange('skills/pdf-tools/references/guide.md', '# Guide\n\nChanged upstream.\n');
    const after = await createReadUpstream(options)(source);
    expect(after.revision).toBe(newCommit);
    expect(after.skills.get('skills/pdf-tools')!.upstreamDigest).not.toBe(source.upstreamDigest);
    expect(after.skills.get('skills/skill-1')!.upstreamDigest).toBe(listing.skills.get('skills/skill-1')!.upstreamDigest);
  });
});

describe('well-known source', () => {
  it('installs v0.2.0 skill-md, zip and tar.gz entries and refuses the wrong digest with both hashes', async () => {
    const found = await lookUpLink(rig.urls.wellKnown, options);
    expect(found.plan.skills.map((s) => s.name).sort()).toEqual(['csv-cleaner', 'log-reader', 'weather-brief']);
    const tampered = found.plan.refusedSkills.find((s) => s.archiveFolder === 'tampered')!;
    expect(tampered.reason).toContain(`the index says sha256:${rig.wellKnown.wrongDigestExpected}`);
    expect(tampered.reason).toContain(`the download is sha256:${rig.wellKnown.wrongDigestActual}`);
    const log = found.plan.skills.find((s) => s.name === 'log-reader')!;
    expect(log.files.map((f) => f.path).sort()).toEqual(['SKILL.md', 'references/levels.md', 'scripts/tail.sh']);
    expect(log.files.find((f) => f.path === 'scripts/tail.sh')).toMatchObject({ mode: 0o755, executable: true });
    const csv = found.plan.skills.find((s) => s.name === 'csv-cleaner')!;
    expect(csv.files.find((f) => f.path === 'scripts/clean.py')).toMatchObject({ mode: 0o755 });
    const source = found.sources[log.id]!;
    expect(source).toMatchObject({ kind: 'well-known', sourceKey: `${rig.urls.wellKnown}/.well-known/agent-skills/index.json`, path: 'log-reader' });
    expect(source.upstreamDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(source.revision).toMatch(/^sha256:/);
  });

  it('reads the earlier draft, checking each file and the manifest digest', async () => {
    const found = await lookUpLink(rig.urls.draft, options);
    expect(found.plan.skills.map((s) => s.name)).toEqual(['git-notes']);
    expect(found.plan.skills[0]!.files.map((f) => f.path).sort()).toEqual(['SKILL.md', 'references/style.md']);
  });

  it('falls back to the legacy v0.1 index', async () => {
    const found = await lookUpLink(rig.urls.legacy, options);
    expect(rig.requests.filter((r) => r.host === 'legacy').map((r) => r.path).slice(0, 2)).toEqual(['/.well-known/agent-skills/index.json', '/.well-known/skills/index.json']);
    expect(found.plan.skills.map((s) => s.name)).toEqual(['recipe-scaler']);
    const source = Object.values(found.sources)[0]!;
    // No digest in v0.1: the upstream digest is the content hash of what was served.
    expect(source.upstreamDigest).toBe(source.installedHash);
  });

  it('says a site with no index publishes none', async () => {
    await expect(lookUpLink(rig.urls.rawHost, options)).rejects.toThrow('publishes no skills index');
  });
});

describe('ClawHub and raw sources', () => {
  it('installs a ClawHub skill at its latest version, and reads the upstream without a download while the version stands', async () => {
    // A bare slug names ClawHub; the rig's address plays its API (rig.hosts.clawhubApi).
    const found = await lookUpLink('todo-triage', options);
    expect(found.plan.skills.map((s) => s.name)).toEqual(['todo-triage']);
    const source = { ...Object.values(found.sources)[0]!, installedAt: 'x' };
    expect(source).toMatchObject({ kind: 'clawhub', sourceKey: 'clawhub:todo-triage', revision: '1.0.0', path: 'todo-triage' });
    expect(source.upstreamDigest).toBe(source.installedHash);
    const before = rig.requests.length;
    const same = await createReadUpstream(options)(source);
    expect(rig.requests.slice(before).map((r) => r.path)).toEqual(['/api/v1/skills/todo-triage']);
    expect(same.skills.get('todo-triage')!.upstreamDigest).toBe(source.upstreamDigest);
    rig.setClawhubVersion('1.1.0');
    const moved = await createReadUpstream(options)(source);
    expect(moved.revision).toBe('1.1.0');
    expect(moved.skills.get('todo-triage')!.upstreamDigest).not.toBe(source.upstreamDigest);
  });

  it('installs a raw SKILL.md with the files it links under the support folders', async () => {
    const found = await lookUpLink(`${rig.urls.rawHost}/team/markdown-lint/SKILL.md`, options);
    const skill = found.plan.skills[0]!;
    expect(skill.name).toBe('markdown-lint');
    expect(skill.files.map((f) => f.path).sort()).toEqual(['SKILL.md', 'references/rules.md', 'scripts/lint.sh', 'templates/report.md']);
    expect(skill.warnings.join('\n')).toContain("'markdown-lint/assets/missing.png' was not imported");
    expect(Object.values(found.sources)[0]).toMatchObject({ kind: 'raw', path: '' });
  });
});

describe('limits', () => {
  it('reports progress per file and stops at Cancel, starting no new request', async () => {
    const abort = new AbortController();
    const progress: string[] = [];
    let rawStarted = 0;
    // The user presses Cancel while the third file is on its way.
    const cancellingFetch: typeof fetch = (input, init) => {
      if (String(input).startsWith(rig.hosts.githubRaw) && ++rawStarted === 3) abort.abort();
      return fetch(input, init);
    };
    const error = await lookUpLink(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}`, {
      ...options,
      fetch: cancellingFetch,
      signal: abort.signal,
      onProgress: (p) => progress.push(p.phase),
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('CancelledError');
    expect(progress).toContain('Downloading files');
    // Requests already started may finish; none starts after Cancel (six run side by side).
    expect(rawStarted).toBeLessThanOrEqual(6);
    expect(rig.requests.filter((r) => r.host === 'githubRaw').length).toBeLessThanOrEqual(6);
  });

  it('turns a fetch TypeError into the CORS message, or the offline one when offline', async () => {
    const failing: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(lookUpLink(rig.urls.wellKnown, { ...options, fetch: failing })).rejects.toThrow('does not allow the browser to read it');
    await expect(lookUpLink(rig.urls.wellKnown, { ...options, fetch: failing, isOnline: () => false })).rejects.toThrow('needs the network');
  });

  it('refuses a pasted link it cannot use without asking any host', async () => {
    await expect(lookUpLink('https://codeload.github.com/o/r/zip/main', options)).rejects.toThrow('Paste the repository or folder link instead');
    expect(rig.requests).toEqual([]);
  });
});
