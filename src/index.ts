// The package's public surface for embedding and for receivers.
export { buildApp } from './app.js';
export { loadConfig } from './config.js';
export { verifySignature, verifyStandardSignature } from './webhooks/signature.js';
