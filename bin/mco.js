#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
import '../dist/src/cmd/mco.js';
