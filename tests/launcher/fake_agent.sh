#!/bin/bash
# Launch agent for the launcher tests: called as `fake_agent.sh HOST COMMAND...` like
# `ssh HOST COMMAND...`, it runs COMMAND here, with a fresh minimal environment (as a
# remote login would have) plus FAKE_AGENT_HOST=HOST so ranks can tell where they "are".
# It execs, so the proxy replaces it and inherits its death signal and pipes.
host="$1"
shift
exec env -i PATH="$PATH" HOME="${HOME:-/}" FAKE_AGENT_HOST="$host" "$@"
