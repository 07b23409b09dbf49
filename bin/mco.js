#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
await import('../dist/src/cmd/mco.js');
