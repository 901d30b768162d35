/**
 * The gate view's small rules as plain functions (unit-tested in Node, tests/unit/ui/gateRunRules.test.ts):
 * when a manual run asks first, the words of that question, and the host of an automatic-run
 * permission request.
 */
import type { GateEstimate } from '../../app/gateServices';
import { CONFIRM_MANUAL_ABOVE_REQUESTS } from '../../gate/gateSettings';

/** What automatic runs ask before their first run against a non-local host. */
export interface GatePermissionRequest {
  host: string;
}

/** The confirmation text of a manual run that sends many requests: "≈ 16 requests (8 cached) to host". */
export function estimateText(estimate: GateEstimate): string {
  return `≈ ${estimate.requests} requests (${estimate.cached} cached) to ${estimate.host}`;
}

/** A manual run asks first when it would send many uncached requests to another machine. */
export function needsConfirmation(estimate: GateEstimate): boolean {
  return !estimate.local && estimate.requests > CONFIRM_MANUAL_ABOVE_REQUESTS;
}

/** The host of a permission request, whichever shape the learning loop gives it. */
export function permissionHost(request: GatePermissionRequest | string | null | undefined): string | null {
  if (!request) return null;
  return typeof request === 'string' ? request : request.host || null;
}

/** The notice after a run ended without a new verdict, or null when it left one. */
export function runEndNotice(ended: { status?: string } | null, stopped: boolean, verdictUnchanged: boolean): string | null {
  if (!verdictUnchanged) return null;
  if (ended?.status === 'cancelled' || stopped) return 'Verification cancelled; the previous verdict stays.';
  return null;
}
