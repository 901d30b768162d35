import { failServices, provideServices, type KnackServices } from './services';

/** Opens storage, runs recovery and publishes the services. Storage engine fills this in. */
export async function boot(): Promise<KnackServices> {
  try {
    const value: KnackServices = {};
    provideServices(value);
    return value;
  } catch (error) {
    failServices(error);
    throw error;
  }
}
