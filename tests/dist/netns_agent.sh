#!/usr/bin/env bash
# Open MPI's remote launch agent (plm_rsh_agent) for tests/dist/two_hosts.sh: what ssh would do,
# for a "host" that is a network namespace on this machine. Called as: netns_agent.sh HOST COMMAND...
set -euo pipefail
host=$1
shift
for pair in $NDRT_NETNS_MAP; do
  if [ "${pair%%=*}" = "$host" ]; then
    exec ip netns exec "${pair#*=}" /bin/sh -c "$*"
  fi
done
echo "netns_agent: no namespace for host $host (map: $NDRT_NETNS_MAP)" >&2
exit 1
