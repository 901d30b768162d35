import { describe, expect, it } from 'vitest';
import { hashForView, viewFromHash, VIEW_IDS } from '../../../src/ui/state/routes';

describe('hash routes', () => {
  it('round-trips every view through its hash', () => {
    for (const view of VIEW_IDS) expect(viewFromHash(hashForView(view))).toBe(view);
  });

  it('accepts a hash without the slash, in any case, with extra segments', () => {
    expect(viewFromHash('#skills')).toBe('skills');
    expect(viewFromHash('#/Memory')).toBe('memory');
    expect(viewFromHash('#/activity/run-12')).toBe('activity');
  });

  it('falls back to chat for an empty or unknown hash', () => {
    expect(viewFromHash('')).toBe('chat');
    expect(viewFromHash('#')).toBe('chat');
    expect(viewFromHash('#/nowhere')).toBe('chat');
    expect(viewFromHash('#/__proto__')).toBe('chat');
  });
});
