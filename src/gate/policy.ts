import type { EvidencePolicy, PolicyThresholds } from './types';

/**
 * How much evidence a promotion needs (Settings → "Evidence required"; docs/gate.md, "Policies").
 * `standard` adds two floors to the majority rule: held-out sign-test p ≤ 0.25 and pooled
 * p ≤ 0.10. Our simulation (tests/unit/gate/operatingCharacteristics.test.ts) shows they keep a
 * useless skill from being labelled verified under replay noise, at the price of staging more
 * borderline skills, which stay usable as unverified. `lenient` is the plain majority rule;
 * `strict` also replays the baseline twice, needs more cases, and needs at least one held-out
 * case from the user's own later chats (docs/gate.md, "Independent cases").
 */
export const POLICIES: Readonly<Record<EvidencePolicy, Readonly<PolicyThresholds>>> = Object.freeze({
  lenient: Object.freeze({ minCases: 4, minHoldout: 2, maxHoldoutP: 1, maxPooledP: 1, stabilityReplay: false }),
  standard: Object.freeze({ minCases: 4, minHoldout: 2, maxHoldoutP: 0.25, maxPooledP: 0.1, stabilityReplay: false }),
  strict: Object.freeze({ minCases: 6, minHoldout: 3, maxHoldoutP: 0.125, maxPooledP: 0.05, stabilityReplay: true, minIndependentHoldout: 1 }),
});

export const DEFAULT_POLICY: EvidencePolicy = 'standard';

export const isEvidencePolicy = (value: unknown): value is EvidencePolicy =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(POLICIES, value);

/** The thresholds of a named policy; anything unknown reads as the default. */
export function policyThresholds(name: unknown): PolicyThresholds {
  return { ...POLICIES[isEvidencePolicy(name) ? name : DEFAULT_POLICY] };
}
