#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
import { setFlagsFromString } from 'node:v8';

// The mco processes are long-lived servers whose requests leave large short-lived strings and
// buffers (a 1 MiB object decoded, then encoded for each watcher). With V8's default heap growth
// (up to 4× the live set between full collections) such garbage pushed the API server's peak RSS
// past 300 MiB during a 100 MB watch replay; growing by half keeps it near 220 MiB
// (docs/adr/0027-v8-heap-growth.md has the measurements and the cost).
setFlagsFromString('--heap-growing-percent=50');
await import('../dist/src/cmd/mco.js');
