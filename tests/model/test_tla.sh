#!/usr/bin/env bash
# test_tla.sh SRCDIR CACHE - the TLA+ files of spec/ parse with a real
# TLA+ grammar (the npm package @tlaplus/tree-sitter-tlaplus, run by
# web-tree-sitter, installed once into CACHE with npm), and a copy with a
# syntax error is refused (the check can fail). Then tools/model_names.sh.
# Exits 77 when node/npm or the packages cannot be had (1 under CI=true).
set -euo pipefail
src=${1:?usage: test_tla.sh SRCDIR CACHE}
cache=${2:?usage: test_tla.sh SRCDIR CACHE}
skip() {
	echo "test_tla: $*" >&2
	[[ ${CI:-} == true ]] && exit 1
	exit 77
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
	skip "node or npm missing (tools/deps.sh installs them)"
mods=$cache/node_modules
wasm=$mods/@tlaplus/tree-sitter-tlaplus/tree-sitter-tlaplus.wasm
if [[ ! -f $wasm || ! -d $mods/web-tree-sitter ]]; then
	mkdir -p "$cache"
	npm install --prefix "$cache" --no-save --ignore-scripts --no-audit --no-fund \
		@tlaplus/tree-sitter-tlaplus@1.5.0 web-tree-sitter@0.24.7 >"$cache/npm.log" 2>&1 ||
		{ tail -5 "$cache/npm.log"; skip "npm install failed"; }
fi
NODE_PATH=$mods node "$src/tools/tla_parse.js" "$wasm" "$src"/spec/*.tla
# the check fails on a syntax error
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^Init ==/Init == == (/' "$src/spec/catan.tla" >"$tmp/broken.tla"
if NODE_PATH=$mods node "$src/tools/tla_parse.js" "$wasm" "$tmp/broken.tla"; then
	echo "FAIL: a TLA+ file with a syntax error parsed" >&2
	exit 1
fi
echo "ok: the broken copy is refused"
bash "$src/tools/model_names.sh" "$src"
