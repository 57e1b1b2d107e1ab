#!/usr/bin/env bash
# Installs the Debian packages the build needs, and only those that are
# missing: a library counts as present when pkg-config finds it, a tool when
# it is on PATH. Calls apt-get (update once, then install) only if something
# is missing.
set -euo pipefail


# tool -> Debian package (gnuplot draws catan report's figures; python3
# runs the Python example agent and the misbehaving test agents; spin
# model-checks spec/replication.pml; node and npm run the TLA+ grammar
# that parses spec/*.tla; xdotool, xwd and netpbm drive and photograph the
# window by hand under Xvfb: tools/ui_by_hand.sh; openssl makes the https
# test's throwaway certificate authority)
tools=(cmake:cmake cc:gcc make:make pkg-config:pkg-config git:git
	xvfb-run:xvfb xauth:xauth ip:iproute2 ssh-keygen:openssh-client
	strace:strace valgrind:valgrind gnuplot:gnuplot-nox clang:clang
	python3:python3 spin:spin node:nodejs npm:npm
	xdotool:xdotool xwd:x11-apps xwdtopnm:netpbm openssl:openssl
	curl:curl)
# pkg-config module -> Debian package
libs=(cmocka:libcmocka-dev libgit2:libgit2-dev sdl2:libsdl2-dev
	SDL2_ttf:libsdl2-ttf-dev libpng:libpng-dev libssh2:libssh2-1-dev
	zlib:zlib1g-dev nettle:nettle-dev libsodium:libsodium-dev)
# file -> Debian package (the window's font)
# (and the ssh server the ssh:// test starts on loopback)
# (and libFuzzer with clang's sanitizer runtimes for the fuzz build, which
# the clang package does not pull in)
# (and the web server of the https test and benchmark: nginx with TLS and
# basic authentication, fcgiwrap running git's git-http-backend; and
# gitolite, per-player write rights over ssh, for the gitolite test)
# (and mbedTLS's headers: the cheap "anything new?" of an https remote
# speaks TLS itself, src/store/http_tls.c; libgit2-dev pulls them in today)
files=(/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:fonts-dejavu-core
	/usr/sbin/sshd:openssh-server
	/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev
	/usr/sbin/nginx:nginx /usr/sbin/fcgiwrap:fcgiwrap
	/usr/bin/gitolite:gitolite3
	/usr/include/mbedtls/ssl.h:libmbedtls-dev)

missing=()
for t in "${tools[@]}"; do
	command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t#*:}")
done
if command -v pkg-config >/dev/null 2>&1; then
	for l in "${libs[@]}"; do
		pkg-config --exists "${l%%:*}" || missing+=("${l#*:}")
	done
else
	for l in "${libs[@]}"; do missing+=("${l#*:}"); done
fi

for f in "${files[@]}"; do
	[[ -e ${f%%:*} ]] || missing+=("${f#*:}")
done

if ((${#missing[@]} == 0)); then
	exit 0
fi

echo "deps: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) != 0 ]]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	else
		echo "deps: missing ${missing[*]} and not root (no sudo): install them and retry" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
