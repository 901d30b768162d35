import { describe, expect, it } from 'vitest';
import { hashForChat, hashForView, routeFromHash, viewFromHash, VIEW_IDS } from '../../../src/ui/state/routes';

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

  it('reads the chat session from #/chat/<id> and writes it back', () => {
    const id = 'a1b2c3d4-0000-4000-8000-000000000001';
    expect(routeFromHash(`#/chat/${id}`)).toEqual({ view: 'chat', sessionId: id });
    expect(routeFromHash(hashForChat(id))).toEqual({ view: 'chat', sessionId: id });
    expect(hashForChat(null)).toBe('#/chat');
    expect(routeFromHash('#/chat')).toEqual({ view: 'chat', sessionId: null });
    expect(routeFromHash('#/chat/')).toEqual({ view: 'chat', sessionId: null });
  });

  it('round-trips ids that need escaping and ignores malformed ones', () => {
    const id = 'odd id/with#signs';
    expect(hashForChat(id)).toBe('#/chat/odd%20id%2Fwith%23signs');
    expect(routeFromHash(hashForChat(id)).sessionId).toBe(id);
    expect(routeFromHash('#/chat/%E0%A4%A')).toEqual({ view: 'chat', sessionId: null });
  });

  it('has no session outside the chat, including the chat fallback for unknown views', () => {
    expect(routeFromHash('#/skills/abc')).toEqual({ view: 'skills', sessionId: null });
    expect(routeFromHash('#/nowhere/abc')).toEqual({ view: 'chat', sessionId: null });
    expect(routeFromHash('')).toEqual({ view: 'chat', sessionId: null });
  });
});
