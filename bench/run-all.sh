#!/bin/sh
# Every benchmark of the repository, one after the other (machine-auth only when its script exists).
set -e
npm run -s bench:frontier
if npm run | grep -q 'bench:machine-auth'; then npm run -s bench:machine-auth; fi
if npm run | grep -q 'bench:faults'; then npm run -s bench:faults; fi
