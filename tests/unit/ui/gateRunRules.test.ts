import { describe, expect, it } from 'vitest';
import { estimateText, needsConfirmation, permissionHost, runEndNotice } from '../../../src/ui/state/gateRunRules';

const estimate = (requests: number, local: boolean) => ({ requests, cached: 8, host: 'api.example.com', local });

describe('gate run rules', () => {
  it('asks first only for a remote run above 40 uncached requests', () => {
    expect(needsConfirmation(estimate(41, false))).toBe(true);
    expect(needsConfirmation(estimate(40, false))).toBe(false);
    expect(needsConfirmation(estimate(500, true))).toBe(false);
  });

  it('says what the run sends and where', () => {
    expect(estimateText({ requests: 16, cached: 8, host: 'api.example.com', local: false })).toBe('≈ 16 requests (8 cached) to api.example.com');
  });

  it('reads the host of a permission request in either shape', () => {
    expect(permissionHost({ host: 'api.example.com' })).toBe('api.example.com');
    expect(permissionHost('gpu.lan')).toBe('gpu.lan');
    expect(permissionHost(null)).toBeNull();
    expect(permissionHost({ host: '' })).toBeNull();
  });

  it('notes a cancelled run only when the verdict stayed', () => {
    expect(runEndNotice({ status: 'cancelled' }, false, true)).toMatch(/previous verdict stays/);
    expect(runEndNotice(null, true, true)).toMatch(/cancelled/);
    expect(runEndNotice({ status: 'cancelled' }, true, false)).toBeNull();
    expect(runEndNotice({ status: 'done' }, false, true)).toBeNull();
  });
});
