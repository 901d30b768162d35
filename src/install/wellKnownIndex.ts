/**
 * Reading a site's skills index (docs/install.md, "Well-known indexes"), in its three shapes:
 * - v0.2.0 (`/.well-known/agent-skills/index.json`): `{skills: [{name, type: "skill-md" |
 *   "archive", description, url, digest: "sha256:…"}]}`, one artifact per skill;
 * - the earlier deployed v0.2 draft: `{version, skills: [{name, description, files: [{path,
 *   digest}], digest?}]}`, per-file digests and a manifest digest;
 * - v0.1 (`/.well-known/skills/index.json`): `{skills: [{name, description, files: [path]}]}`, no
 *   digests.
 * Pure: URLs are resolved against the index URL; no network.
 */
import { unsafePathReason } from '../skills/zipArchive';
import { parseDigest } from './digest';

export type IndexEntry =
  | { shape: 'v0.2'; name: string; description: string; type: 'skill-md' | 'archive'; url: string; digest: string }
  | { shape: 'draft'; name: string; description: string; files: Array<{ path: string; url: string; digest: string }>; digest: string | null }
  | { shape: 'v0.1'; name: string; description: string; files: Array<{ path: string; url: string }> };

export interface ParsedIndex {
  shape: 'v0.2' | 'draft' | 'v0.1';
  skills: IndexEntry[];
  /** Entries that cannot be installed, with the reason (a bad name, a missing digest, a `..` path). */
  refused: Array<{ name: string; reason: string }>;
}

export const AGENT_SKILLS_INDEX = '/.well-known/agent-skills/index.json';
export const LEGACY_SKILLS_INDEX = '/.well-known/skills/index.json';

const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/i;
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Where a skill's files live when the index gives paths only: beside the index, in a folder named after the skill. */
function fileUrl(indexUrl: string, name: string, path: string): string {
  return new URL(`${encodeURIComponent(name)}/${path.split('/').map(encodeURIComponent).join('/')}`, indexUrl).href;
}

function pathProblem(path: string): string | null {
  if (!path) return 'an empty file path';
  return unsafePathReason(path);
}

/** Parses an index document; throws with a readable message when it is none of the three shapes. */
export function parseSkillsIndex(document: unknown, indexUrl: string): ParsedIndex {
  if (!isRecord(document) || !Array.isArray(document.skills)) {
    throw new Error(`${indexUrl} is not a skills index: it has no "skills" list.`);
  }
  const entries = document.skills;
  const first = entries.find(isRecord);
  const shape: ParsedIndex['shape'] = !first
    ? 'v0.2'
    : typeof first.url === 'string' || typeof first.type === 'string'
      ? 'v0.2'
      : Array.isArray(first.files) && first.files.some(isRecord)
        ? 'draft'
        : 'v0.1';
  const parsed: ParsedIndex = { shape, skills: [], refused: [] };
  const seen = new Set<string>();
  for (const raw of entries) {
    if (!isRecord(raw)) continue;
    const name = text(raw.name).trim();
    const description = text(raw.description);
    const refuse = (reason: string) => parsed.refused.push({ name: name || '(unnamed)', reason });
    if (!NAME_RE.test(name)) {
      refuse(`'${name}' is not a usable skill name`);
      continue;
    }
    if (seen.has(name)) {
      refuse('the index lists this name twice; only the first is used');
      continue;
    }
    seen.add(name);
    if (shape === 'v0.2') {
      const type = raw.type;
      if (type !== 'skill-md' && type !== 'archive') {
        refuse(`its type '${String(type)}' is neither "skill-md" nor "archive"`);
        continue;
      }
      if (!parseDigest(raw.digest)) {
        refuse('it has no sha256 digest, which the index format requires; Knack does not install unverified artifacts from a v0.2 index');
        continue;
      }
      let url: string;
      try {
        url = new URL(text(raw.url), indexUrl).href;
      } catch {
        refuse(`its url '${text(raw.url)}' is not a link`);
        continue;
      }
      parsed.skills.push({ shape, name, description, type, url, digest: text(raw.digest).trim().toLowerCase() });
      continue;
    }
    const files = Array.isArray(raw.files) ? raw.files : [];
    if (shape === 'draft') {
      const out: Array<{ path: string; url: string; digest: string }> = [];
      let problem: string | null = null;
      for (const file of files) {
        const path = isRecord(file) ? text(file.path) : '';
        const digest = isRecord(file) ? text(file.digest).trim().toLowerCase() : '';
        problem = pathProblem(path) ?? (parseDigest(digest) ? null : `'${path}' has no sha256 digest`);
        if (problem) break;
        const url = isRecord(file) && typeof file.url === 'string' ? new URL(file.url, indexUrl).href : fileUrl(indexUrl, name, path);
        out.push({ path, url, digest });
      }
      if (!problem && !out.some((file) => file.path === 'SKILL.md')) problem = 'its files do not include SKILL.md';
      if (problem) {
        refuse(problem);
        continue;
      }
      parsed.skills.push({ shape, name, description, files: out, digest: parseDigest(raw.digest) ? text(raw.digest).trim().toLowerCase() : null });
      continue;
    }
    const paths = files.filter((file): file is string => typeof file === 'string');
    const problem = paths.map(pathProblem).find((reason) => reason !== null) ?? (paths.includes('SKILL.md') ? null : 'its files do not include SKILL.md');
    if (problem) {
      refuse(problem);
      continue;
    }
    parsed.skills.push({ shape, name, description, files: paths.map((path) => ({ path, url: fileUrl(indexUrl, name, path) })) });
  }
  return parsed;
}
