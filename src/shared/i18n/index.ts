export * from './intl-cache.js';
export * from './locales.js';
export * from './translator.js';
