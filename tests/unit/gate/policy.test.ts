/** The three evidence policies and how a stored setting is read. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, isEvidencePolicy, POLICIES, policyThresholds } from '../../../src/gate/policy';

describe('policies', () => {
  it('has the published thresholds', () => {
    expect(POLICIES).toEqual({
      lenient: { minCases: 4, minHoldout: 2, maxHoldoutP: 1, maxPooledP: 1, stabilityReplay: false },
      standard: { minCases: 4, minHoldout: 2, maxHoldoutP: 0.25, maxPooledP: 0.1, stabilityReplay: false },
      strict: { minCases: 6, minHoldout: 3, maxHoldoutP: 0.125, maxPooledP: 0.05, stabilityReplay: true, minIndependentHoldout: 1 },
    });
    expect(DEFAULT_POLICY).toBe('standard');
  });

  it('reads an unknown or missing setting as the default, and hands out copies', () => {
    expect(policyThresholds('strict')).toEqual(POLICIES.strict);
    expect(policyThresholds('toString')).toEqual(POLICIES.standard);
    expect(policyThresholds(undefined)).toEqual(POLICIES.standard);
    expect(isEvidencePolicy('lenient')).toBe(true);
    expect(isEvidencePolicy('constructor')).toBe(false);
    const copy = policyThresholds('standard');
    copy.maxHoldoutP = 1;
    expect(POLICIES.standard.maxHoldoutP).toBe(0.25);
    expect(Object.isFrozen(POLICIES.standard)).toBe(true);
  });
});
