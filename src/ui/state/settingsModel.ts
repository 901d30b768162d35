/** The app settings model lives in the core (src/app/appSettings.ts); the UI imports it from here. */
export * from '../../app/appSettings';
