// The Node flags the daemon runs with, however it is started: `svc daemon`, `svc up`, the image's CMD (docker/
// Dockerfile, kept equal by test/compose.e2e-spec.ts) and the tests' and benches' daemons (ADR 0093).
// A semi-space of 32 MiB where V8 gives 16: a write allocates a few hundred KiB of short-lived objects (the request,
// its rows, its answer), and a young generation twice as large collects them half as often and promotes fewer of
// them into the old generation, whose full collections mark the whole kept frontier.
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
