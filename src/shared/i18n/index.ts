export * from './locales.js';
export * from './translator.js';
