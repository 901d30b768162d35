/**
 * The app's long-lived services (storage, stores, tools), created once at start-up.
 * UI state modules await `services` instead of constructing anything themselves.
 */
export interface KnackServices {
  // Filled in by the storage engine (boot.ts): files, locks, db, journal, changes…
}

let resolveServices!: (value: KnackServices) => void;
let rejectServices!: (reason: unknown) => void;

export const services: Promise<KnackServices> = new Promise((resolve, reject) => {
  resolveServices = resolve;
  rejectServices = reject;
});

export function provideServices(value: KnackServices): void {
  resolveServices(value);
}

export function failServices(reason: unknown): void {
  rejectServices(reason);
}
