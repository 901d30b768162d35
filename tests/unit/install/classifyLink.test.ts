import { describe, expect, it } from 'vitest';
import { classifyLink } from '../../../src/install/classifyLink';

describe('classifyLink', () => {
  it('reads a GitHub repository, folder and SKILL.md link', () => {
    expect(classifyLink('https://github.com/anthropics/skills')).toEqual({ kind: 'github', owner: 'anthropics', repo: 'skills', ref: null, path: '', blob: false });
    expect(classifyLink('github.com/anthropics/skills.git/')).toMatchObject({ kind: 'github', owner: 'anthropics', repo: 'skills' });
    expect(classifyLink('anthropics/skills')).toMatchObject({ kind: 'github', owner: 'anthropics', repo: 'skills', ref: null });
    expect(classifyLink('https://github.com/anthropics/skills/tree/main/skills/pdf')).toEqual({ kind: 'github', owner: 'anthropics', repo: 'skills', ref: 'main', path: 'skills/pdf', blob: false });
    expect(classifyLink('https://github.com/o/r/blob/v1.2/skills/pdf/SKILL.md')).toEqual({ kind: 'github', owner: 'o', repo: 'r', ref: 'v1.2', path: 'skills/pdf', blob: true });
    expect(classifyLink('https://github.com/o/r/blob/main/SKILL.md')).toEqual({ kind: 'github', owner: 'o', repo: 'r', ref: 'main', path: '', blob: true });
  });

  it('refuses a GitHub file that is not a SKILL.md, and pages that are no repository', () => {
    expect(classifyLink('https://github.com/o/r/blob/main/README.md')).toMatchObject({ kind: 'refused', message: expect.stringContaining('not a SKILL.md') });
    expect(classifyLink('https://github.com/o/r/issues/3')).toMatchObject({ kind: 'refused' });
    expect(classifyLink('https://github.com/o')).toMatchObject({ kind: 'refused', message: expect.stringContaining('no repository') });
  });

  it('refuses codeload, zipball and release links with what to paste instead', () => {
    for (const link of [
      'https://codeload.github.com/anthropics/skills/zip/refs/heads/main',
      'https://github.com/anthropics/skills/archive/refs/heads/main.zip',
      'https://github.com/o/r/releases/download/v1/skill.zip',
      'https://api.github.com/repos/o/r/zipball/main',
      'https://api.github.com/repos/o/r/tarball',
    ]) {
      const target = classifyLink(link);
      expect(target.kind, link).toBe('refused');
      expect(target.kind === 'refused' && target.message).toContain('Paste the repository or folder link instead');
      expect(target.kind === 'refused' && target.message).toContain('drop it on Import skills');
    }
  });

  it('reads a site, its index URL and the legacy index', () => {
    expect(classifyLink('https://example.com')).toEqual({ kind: 'well-known', origin: 'https://example.com', indexUrl: null });
    expect(classifyLink('example.com/docs/')).toEqual({ kind: 'well-known', origin: 'https://example.com', indexUrl: null });
    expect(classifyLink('https://example.com/.well-known/agent-skills/index.json')).toEqual({ kind: 'well-known', origin: 'https://example.com', indexUrl: 'https://example.com/.well-known/agent-skills/index.json' });
    expect(classifyLink('https://example.com/.well-known/skills/index.json')).toMatchObject({ kind: 'well-known', indexUrl: 'https://example.com/.well-known/skills/index.json' });
  });

  it('reads a ClawHub page, a slug and a clawhub: slug', () => {
    expect(classifyLink('https://clawhub.ai/steipete/gog')).toEqual({ kind: 'clawhub', slug: 'gog', page: 'https://clawhub.ai/steipete/gog' });
    expect(classifyLink('https://clawhub.ai/skills/todo-triage')).toMatchObject({ kind: 'clawhub', slug: 'todo-triage' });
    expect(classifyLink('todo-triage')).toEqual({ kind: 'clawhub', slug: 'todo-triage', page: null });
    expect(classifyLink('clawhub:weather')).toEqual({ kind: 'clawhub', slug: 'weather', page: null });
    expect(classifyLink('https://clawhub.ai/api/v1/download?slug=x')).toMatchObject({ kind: 'refused' });
  });

  it('reads a raw SKILL.md URL on any host, GitHub raw included', () => {
    expect(classifyLink('https://raw.githubusercontent.com/o/r/main/skills/pdf/SKILL.md')).toEqual({ kind: 'raw', url: 'https://raw.githubusercontent.com/o/r/main/skills/pdf/SKILL.md' });
    expect(classifyLink('https://example.org/team/lint/SKILL.md')).toEqual({ kind: 'raw', url: 'https://example.org/team/lint/SKILL.md' });
  });

  it('refuses plain http off this machine, archives, gists, other schemes and nothing', () => {
    expect(classifyLink('http://example.com')).toMatchObject({ kind: 'refused', message: expect.stringContaining('https') });
    expect(classifyLink('http://127.0.0.1:8080')).toMatchObject({ kind: 'well-known' });
    expect(classifyLink('https://example.com/skill.zip')).toMatchObject({ kind: 'refused', message: expect.stringContaining('drop it on Import skills') });
    expect(classifyLink('https://example.com/skill.tar.gz')).toMatchObject({ kind: 'refused' });
    expect(classifyLink('https://gist.github.com/a/b')).toMatchObject({ kind: 'refused' });
    expect(classifyLink('ftp://example.com/SKILL.md')).toMatchObject({ kind: 'refused' });
    expect(classifyLink('   ')).toMatchObject({ kind: 'refused', message: expect.stringContaining('Paste a link') });
    expect(classifyLink('not a link at all')).toMatchObject({ kind: 'refused' });
  });
});
