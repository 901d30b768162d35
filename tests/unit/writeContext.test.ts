import { ViewedFiles } from '../../src/tools/viewedFiles';
import { describe, expect, it } from 'vitest';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import {
  actorFor,
  createdByFor,
  createWriteContext,
  isReview,
  usageSourceFor,
  WRITE_ORIGINS,
  type WriteOrigin,
} from '../../src/tools/writeContext';

describe('the write-origin table (docs/write-origins.md)', () => {
  it('maps every origin to one ledger actor, usage source and created_by', () => {
    const rows = Object.fromEntries(
      (Object.keys(WRITE_ORIGINS) as WriteOrigin[]).map((origin) => [origin, [actorFor(origin), usageSourceFor(origin), WRITE_ORIGINS[origin].createdBy]]),
    );
    expect(rows).toEqual({
      foreground: ['agent', 'foreground', null],
      review: ['review', 'review', 'agent'],
      curator: ['curator', 'unknown', null],
      import: ['import', 'import', null],
      user: ['user', 'user', null],
      gate: ['gate', 'unknown', null],
    });
  });

  it('"agent" means the chat agent in the ledger and the review agent in created_by', () => {
    expect(actorFor('foreground')).toBe('agent');
    expect(createdByFor(usageSourceFor('foreground'))).toBeNull();
    expect(createdByFor(usageSourceFor('review'))).toBe('agent');
    expect(createdByFor('unknown')).toBeNull();
  });

  it.each(['foreground', 'review', 'import', 'user'] as const)('a skill created from origin %s is recorded as the table says', async (origin) => {
    const t = createTestEngine();
    const result = await t.manage({ action: 'create', name: 'git-style', content: skillContent('git-style') }, t.context(origin));
    expect(result.success).toBe(true);
    const [entry] = await t.engine.ledger.list('git-style');
    expect(entry!.actor).toBe(WRITE_ORIGINS[origin].actor);
    const record = await t.engine.usage.get('git-style');
    expect({ source: record.source, created_by: record.created_by }).toEqual({
      source: WRITE_ORIGINS[origin].usageSource,
      created_by: WRITE_ORIGINS[origin].createdBy,
    });
  });

  it('a context starts with nothing read; only the review origin is review', () => {
    const context = createWriteContext('review', 's1');
    expect(context).toEqual({ origin: 'review', readPaths: new Set(), sessionId: 's1', viewedFiles: new ViewedFiles() });
    expect(isReview(context)).toBe(true);
    expect(isReview(createWriteContext())).toBe(false);
  });
});
