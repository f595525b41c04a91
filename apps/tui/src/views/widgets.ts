import type * as Blessed from 'blessed';

// Required on their own: blessed's index requires all 35 of its widgets (about 65 ms of the first frame,
// bench/README.md "Terminal UI").
/* eslint-disable @typescript-eslint/no-require-imports */
export const screen = require('blessed/lib/widgets/screen') as typeof Blessed.screen;
export const box = require('blessed/lib/widgets/box') as typeof Blessed.box;
/* eslint-enable @typescript-eslint/no-require-imports */
