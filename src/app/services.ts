/**
 * The app's long-lived services, created once per context. `KnackServices` is storage
 * (files, locks, journal, change feed and the typed record stores); `AppServices`
 * (app/appServices.ts) is everything built on it. UI state modules reach both through the one
 * accessor `appServices()` and call domain methods; they never construct services themselves.
 */
import type { AppServices } from './appServices';
import type { KnackServices } from './storageServices';

export type { KnackServices } from './storageServices';

let resolveServices!: (value: KnackServices) => void;
let rejectServices!: (reason: unknown) => void;

/** The tab's storage, once boot opened it. */
export const services: Promise<KnackServices> = new Promise((resolve, reject) => {
  resolveServices = resolve;
  rejectServices = reject;
});
services.catch(() => undefined); // reported by boot; avoid an unhandled rejection here

let app: Promise<AppServices> | null = null;

/** The tab's services: the one accessor UI state modules use (built on first call). */
export function appServices(): Promise<AppServices> {
  app ??= Promise.all([services, import('./appServices')]).then(([storage, { createAppServices }]) => createAppServices(storage, { context: 'tab' }));
  return app;
}

export function provideServices(value: KnackServices): void {
  resolveServices(value);
}

export function failServices(reason: unknown): void {
  rejectServices(reason);
}
