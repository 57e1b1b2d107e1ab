#!/bin/sh
# install.sh - the store as a library others link: cmake --install of the
# build directory into a temporary prefix, then a tiny C program compiled
# and linked against it with nothing but pkg-config (catan.pc), run.
#
# usage: install.sh BUILD_DIR
# Exits 77 (skipped) when cc or pkg-config is missing, 1 under CI=true.
set -eu
build=$1
for tool in cc pkg-config cmake; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "install.sh: $tool not found"
		[ "${CI:-}" = true ] && exit 1
		exit 77
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
pc=$(find "$tmp/prefix" -name catan.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no catan.pc installed"; exit 1; }
for f in libcatan.a libcatan-store.a; do
	[ -n "$(find "$tmp/prefix" -name $f)" ] || { echo "FAIL: no $f installed"; exit 1; }
done
[ -f "$tmp/prefix/include/catan/store.h" ] || { echo "FAIL: no include/catan/store.h"; exit 1; }
# Only the public headers: nothing of src/store.
if [ -n "$(find "$tmp/prefix/include" -name '*internal*' -o -name 'repo.h')" ]; then
	echo "FAIL: a private header was installed"
	exit 1
fi
cat >"$tmp/hello.c" <<'C'
#include <stdio.h>
#include <string.h>

#include <catan/store.h>

/* Links both libraries: the rules' sentences and the store's open. */
int main(int argc, char **argv)
{
	catan_store *s = NULL;
	catan_err err = {0};
	(void)argc;
	if (catan_store_open(&s, argv[1], &err) == 0 || s)
		return 1;
	if (err.code != CATAN_STORE_E_NOT_FOUND || !err.msg[0])
		return 2;
	if (!strlen(catan_error_str(CATAN_E_NOT_YOUR_TURN)))
		return 3;
	printf("catan_store_open: %s\n", err.msg);
	return 0;
}
C
export PKG_CONFIG_PATH="${pc%/*}"
# shellcheck disable=SC2046 # (pkg-config's words are meant to split)
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/hello" "$tmp/hello.c" \
	$(pkg-config --cflags catan) $(pkg-config --static --libs catan) ||
	{ echo "FAIL: the program does not build against the installed library"; exit 1; }
"$tmp/hello" "$tmp/no-such-game" || { echo "FAIL: the program returned $?"; exit 1; }
echo "ok: built and ran against $(pkg-config --modversion catan) installed in a temporary prefix"
