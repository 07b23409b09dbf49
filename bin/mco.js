#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
// `mco daemon` runs on every node: it loads only its own command (a smaller resident set).
import { argv } from 'node:process';

if (argv[2] === 'daemon') await import('../dist/src/cmd/mco-daemon.js');
else await import('../dist/src/cmd/mco.js');
