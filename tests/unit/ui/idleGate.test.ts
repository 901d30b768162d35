import { describe, expect, it } from 'vitest';
import { IdleGate } from '../../../src/ui/state/idleGate';

/** A stand-in for `chat.isGenerating` that the test flips. */
function generation() {
  const state = { running: false };
  return { state, gate: new IdleGate(() => state.running) };
}

describe('IdleGate (the update prompt never reloads during a generation)', () => {
  it('runs an action at once when no reply is being generated', () => {
    const { gate } = generation();
    let reloads = 0;
    expect(gate.run('reload', () => reloads++)).toBe('ran');
    expect(reloads).toBe(1);
    expect(gate.hasPending).toBe(false);
  });

  it('holds the reload while generating and runs it once the reply ends', () => {
    const { state, gate } = generation();
    let reloads = 0;
    state.running = true;
    expect(gate.run('reload', () => reloads++)).toBe('deferred');
    expect(reloads).toBe(0);
    expect(gate.flush()).toBe(0); // still generating: flushing must not run it
    expect(reloads).toBe(0);
    state.running = false;
    expect(gate.flush()).toBe(1);
    expect(reloads).toBe(1);
    expect(gate.flush()).toBe(0); // and only once
    expect(reloads).toBe(1);
  });

  it('collapses repeated requests for the same action into one', () => {
    const { state, gate } = generation();
    const calls: string[] = [];
    state.running = true;
    gate.run('reload', () => calls.push('first'));
    gate.run('reload', () => calls.push('second'));
    state.running = false;
    gate.flush();
    expect(calls).toEqual(['second']);
  });

  it('runs different held actions in the order they were asked for', () => {
    const { state, gate } = generation();
    const calls: string[] = [];
    state.running = true;
    gate.run('activate', () => calls.push('activate'));
    gate.run('reload', () => calls.push('reload'));
    expect(gate.isPending('activate')).toBe(true);
    state.running = false;
    gate.flush();
    expect(calls).toEqual(['activate', 'reload']);
  });

  it('forgets a cancelled action (the user chose Later)', () => {
    const { state, gate } = generation();
    let activations = 0;
    state.running = true;
    gate.run('activate', () => activations++);
    gate.cancel('activate');
    state.running = false;
    expect(gate.flush()).toBe(0);
    expect(activations).toBe(0);
  });
});
