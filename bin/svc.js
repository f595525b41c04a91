#!/usr/bin/env node
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const entry = join(__dirname, '..', 'dist', 'apps', 'svc', 'src', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('svc: not built yet; run `npm run build` in ' + join(__dirname, '..') + '\n');
  process.exit(1);
}
require(entry);
