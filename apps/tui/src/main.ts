// The terminal UI arrives with its own issue; until then its entry says so and points at the CLI.
process.stdout.write('svc tui: the terminal UI is not available yet; use `svc --help` for the command line.\n');
