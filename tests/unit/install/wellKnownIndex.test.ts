import { describe, expect, it } from 'vitest';
import { parseSkillsIndex } from '../../../src/install/wellKnownIndex';
import { checkDigest, gitBlobSha, manifestDigest, parseDigest, sha256Digest } from '../../../src/install/digest';
import { InstallError } from '../../../src/install/installNetwork';

const INDEX = 'https://example.com/.well-known/agent-skills/index.json';
const HEX = 'a'.repeat(64);

describe('parseSkillsIndex', () => {
  it('reads v0.2.0: skill-md and archive entries, urls resolved against the index', () => {
    const parsed = parseSkillsIndex(
      {
        $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
        skills: [
          { name: 'one', type: 'skill-md', description: 'd1', url: '/skills/one/SKILL.md', digest: `sha256:${HEX}` },
          { name: 'two', type: 'archive', description: 'd2', url: 'two.tar.gz', digest: `SHA256:${HEX.toUpperCase()}` },
        ],
      },
      INDEX,
    );
    expect(parsed.shape).toBe('v0.2');
    expect(parsed.skills).toEqual([
      { shape: 'v0.2', name: 'one', description: 'd1', type: 'skill-md', url: 'https://example.com/skills/one/SKILL.md', digest: `sha256:${HEX}` },
      { shape: 'v0.2', name: 'two', description: 'd2', type: 'archive', url: 'https://example.com/.well-known/agent-skills/two.tar.gz', digest: `sha256:${HEX}` },
    ]);
  });

  it('refuses v0.2.0 entries without a digest, with an unknown type or a bad name, and keeps the rest', () => {
    const parsed = parseSkillsIndex(
      {
        skills: [
          { name: 'ok', type: 'skill-md', url: 'a', digest: `sha256:${HEX}` },
          { name: 'nodigest', type: 'skill-md', url: 'b' },
          { name: 'shortdigest', type: 'skill-md', url: 'b', digest: 'sha256:abc' },
          { name: 'weird', type: 'folder', url: 'c', digest: `sha256:${HEX}` },
          { name: '../up', type: 'skill-md', url: 'd', digest: `sha256:${HEX}` },
          { name: 'ok', type: 'skill-md', url: 'e', digest: `sha256:${HEX}` },
        ],
      },
      INDEX,
    );
    expect(parsed.skills.map((skill) => skill.name)).toEqual(['ok']);
    expect(parsed.refused.map((refused) => refused.name)).toEqual(['nodigest', 'shortdigest', 'weird', '../up', 'ok']);
    expect(parsed.refused[0]!.reason).toContain('no sha256 digest');
  });

  it('reads the earlier draft: per-file digests and the manifest digest', () => {
    const parsed = parseSkillsIndex({ version: '0.2.0', skills: [{ name: 'notes', description: 'd', files: [{ path: 'SKILL.md', digest: `sha256:${HEX}` }, { path: 'references/a.md', digest: `sha256:${'b'.repeat(64)}` }], digest: `sha256:${'c'.repeat(64)}` }] }, INDEX);
    expect(parsed.shape).toBe('draft');
    expect(parsed.skills[0]).toEqual({
      shape: 'draft',
      name: 'notes',
      description: 'd',
      digest: `sha256:${'c'.repeat(64)}`,
      files: [
        { path: 'SKILL.md', url: 'https://example.com/.well-known/agent-skills/notes/SKILL.md', digest: `sha256:${HEX}` },
        { path: 'references/a.md', url: 'https://example.com/.well-known/agent-skills/notes/references/a.md', digest: `sha256:${'b'.repeat(64)}` },
      ],
    });
  });

  it('refuses draft entries with a file missing its digest, a climbing path, or no SKILL.md', () => {
    const parsed = parseSkillsIndex(
      {
        skills: [
          { name: 'a', files: [{ path: 'SKILL.md' }] },
          { name: 'b', files: [{ path: '../SKILL.md', digest: `sha256:${HEX}` }] },
          { name: 'c', files: [{ path: 'README.md', digest: `sha256:${HEX}` }] },
        ],
      },
      INDEX,
    );
    expect(parsed.shape).toBe('draft');
    expect(parsed.skills).toEqual([]);
    expect(parsed.refused.map((r) => r.reason)).toEqual(["'SKILL.md' has no sha256 digest", "path climbs out with '..'", 'its files do not include SKILL.md']);
  });

  it('reads v0.1: names, descriptions and file lists beside the index', () => {
    const parsed = parseSkillsIndex({ skills: [{ name: 'recipes', description: 'd', files: ['SKILL.md', 'references/units.md'] }, { name: 'bad', files: ['/etc/passwd', 'SKILL.md'] }] }, 'https://example.com/.well-known/skills/index.json');
    expect(parsed.shape).toBe('v0.1');
    expect(parsed.skills).toEqual([
      { shape: 'v0.1', name: 'recipes', description: 'd', files: [{ path: 'SKILL.md', url: 'https://example.com/.well-known/skills/recipes/SKILL.md' }, { path: 'references/units.md', url: 'https://example.com/.well-known/skills/recipes/references/units.md' }] },
    ]);
    expect(parsed.refused).toEqual([{ name: 'bad', reason: 'absolute path' }]);
  });

  it('throws on a document that is no index', () => {
    expect(() => parseSkillsIndex({ items: [] }, INDEX)).toThrow('no "skills" list');
    expect(() => parseSkillsIndex('text', INDEX)).toThrow('is not a skills index');
  });
});

describe('digests', () => {
  const bytes = new TextEncoder().encode('hello\n');
  const helloHex = '5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03';

  it('parses only sha256 digests of 64 hex digits', () => {
    expect(parseDigest(`sha256:${helloHex}`)).toBe(helloHex);
    expect(parseDigest(`SHA256:${helloHex.toUpperCase()}`)).toBe(helloHex);
    expect(parseDigest(`sha512:${helloHex}`)).toBeNull();
    expect(parseDigest(helloHex)).toBeNull();
    expect(parseDigest(42)).toBeNull();
  });

  it('accepts matching bytes and refuses others with both hashes in the message', async () => {
    expect(await sha256Digest(bytes)).toBe(`sha256:${helloHex}`);
    await expect(checkDigest('x', bytes, `sha256:${helloHex}`)).resolves.toBe(`sha256:${helloHex}`);
    const wrong = `sha256:${'0'.repeat(64)}`;
    const error = await checkDigest("'x'", bytes, wrong).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InstallError);
    expect((error as InstallError).code).toBe('digest');
    expect((error as InstallError).message).toContain(`the index says sha256:${'0'.repeat(64)}`);
    expect((error as InstallError).message).toContain(`the download is sha256:${helloHex}`);
    await expect(checkDigest('x', bytes, 'md5:abc')).rejects.toThrow('no usable digest');
  });

  it('computes the draft manifest digest independent of order', async () => {
    const a = await manifestDigest([{ path: 'b', hex: '2' }, { path: 'a', hex: '1' }]);
    const b = await manifestDigest([{ path: 'a', hex: '1' }, { path: 'b', hex: '2' }]);
    expect(a).toBe(b);
    expect(a).toBe(await sha256Digest(new TextEncoder().encode('a\u00001\nb\u00002\n')));
  });

  it("computes git's blob id", async () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(await gitBlobSha(bytes)).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });
});
