#!/usr/bin/env bash
# Proves the core library is pure: it may call no function outside itself
# except the memory primitives a compiler emits for struct copies and
# comparisons (clang turns memcmp into bcmp). Any other
# undefined symbol (printf, malloc, git_*, SDL_*, ...) fails the check.
set -euo pipefail
lib=$1
allowed='^(memcpy|memset|memmove|memcmp|bcmp|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*|_GLOBAL_OFFSET_TABLE_|__tls_get_addr)$'
defined=$(nm --defined-only "$lib" | awk 'NF==3{print $3}' | sort -u)
bad=$(nm -u "$lib" | awk '{print $2}' | sort -u | grep -vxF -f <(echo "$defined") | grep -Ev "$allowed" || true)
if [[ -n $bad ]]; then
	echo "core library calls outside itself:" >&2
	echo "$bad" >&2
	exit 1
fi
echo "core library is pure: $(nm -u "$lib" | awk '{print $2}' | sort -u | grep -vxF -f <(echo "$defined") | tr '\n' ' ')"
