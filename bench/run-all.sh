#!/bin/sh
# Every benchmark of the repository, one after the other.
set -e
npm run -s bench:frontier
npm run -s bench:machine-auth
npm run -s bench:topology
npm run -s bench:faults
npm run -s bench:tui
npm run -s bench:mcp
