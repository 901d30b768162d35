/**
 * The router's pick at Send (docs/gate.md, "Router"): the pick for exactly the text being sent,
 * computed at send when the composer holds none for it, and never a skill the user removed.
 */
import { describe, expect, it } from 'vitest';
import { draftChip, skillAtSend } from '../../src/skills/draftRouting';

/** A router stand-in that records the texts it was asked about. */
function recordingPicker(pick: string | null) {
  const asked: string[] = [];
  return { asked, pickFor: async (text: string) => (asked.push(text), pick) };
}

describe('skillAtSend', () => {
  it('computes the pick at send when the composer holds none yet (a message pasted and sent at once)', async () => {
    const router = recordingPicker('changelog');
    expect(await skillAtSend('Draft the changelog entry for build 7.', { held: null, removed: [] }, router.pickFor)).toBe('changelog');
    expect(router.asked).toEqual(['Draft the changelog entry for build 7.']);
  });

  it('computes it again when the held pick is for another text (typed on, sent within the moment)', async () => {
    const router = recordingPicker('changelog');
    const held = { text: 'Summarise the notes', skill: 'meeting-notes' };
    expect(await skillAtSend('Summarise the notes, then draft the changelog entry', { held, removed: [] }, router.pickFor)).toBe('changelog');
    expect(router.asked).toHaveLength(1);
  });

  it('uses the held pick for exactly this text, its "none" included, without asking again', async () => {
    const router = recordingPicker('changelog');
    expect(await skillAtSend('Draft it', { held: { text: 'Draft it', skill: 'meeting-notes' }, removed: [] }, router.pickFor)).toBe('meeting-notes');
    expect(await skillAtSend('Draft it', { held: { text: 'Draft it', skill: null }, removed: [] }, router.pickFor)).toBeNull();
    expect(router.asked).toEqual([]);
  });

  it('never sends a skill the user removed from this draft, whether held or computed at send', async () => {
    const router = recordingPicker('changelog');
    expect(await skillAtSend('Draft it', { held: { text: 'Draft it', skill: 'changelog' }, removed: ['changelog'] }, router.pickFor)).toBeNull();
    expect(await skillAtSend('Draft it now', { held: { text: 'Draft it', skill: 'changelog' }, removed: ['changelog'] }, router.pickFor)).toBeNull();
    expect(await skillAtSend('Draft it now', { held: null, removed: ['meeting-notes'] }, router.pickFor)).toBe('changelog');
  });
});

describe('draftChip', () => {
  it('shows the held pick (also while the text changes), none for a blank draft or a removed skill', () => {
    const held = { text: 'Draft the changelog', skill: 'changelog' };
    expect(draftChip('Draft the changelog', { held, removed: [] })).toBe('changelog');
    expect(draftChip('Draft the changelog entry', { held, removed: [] })).toBe('changelog');
    expect(draftChip('  ', { held, removed: [] })).toBeNull();
    expect(draftChip('Draft the changelog', { held, removed: ['changelog'] })).toBeNull();
    expect(draftChip('Draft the changelog', { held: null, removed: [] })).toBeNull();
  });
});
