# A Git host over https on loopback, for the tests and benchmarks: nginx
# (TLS, HTTP basic authentication) in front of git's own git-http-backend
# through fcgiwrap, as a Git hosting server would be set up, with a
# throwaway certificate authority made here. No root needed.
# Source it, then:
#   https_host_start DIR [USER PASSWORD]
#       makes DIR/ca.crt (the authority), DIR/server.crt (for "localhost",
#       signed by it), DIR/other-ca.crt (an authority that signed nothing
#       the server shows), DIR/htpasswd and DIR/repos/ (the repositories
#       served: https://localhost:$HTTPS_PORT/NAME.git is DIR/repos/NAME.git),
#       and starts the servers; sets HTTPS_PORT and HTTPS_URL
#       (https://localhost:PORT). Pushes need the login (REMOTE_USER).
#       Port HTTPS_EXPIRED_PORT serves the same behind DIR/expired.crt, a
#       certificate for "localhost" signed by the authority that expired
#       on 2 January 2020.
#   https_host_client DIR HOME USER PASSWORD [env|none]
#       https_host_start DIR USER PASSWORD for a client that brings
#       nothing of the user's own set-up: first HOME (made) is HOME,
#       GIT_CONFIG_NOSYSTEM=1, and GIT_SSL_CAINFO, GIT_SSL_CAPATH,
#       SSL_CERT_FILE, SSL_CERT_DIR, CATAN_HTTP_USER, CATAN_HTTP_TOKEN,
#       GIT_ASKPASS and SSH_ASKPASS are unset; then, the host started, the
#       login and the authority: exported for catan (GIT_SSL_CAINFO
#       DIR/ca.crt, CATAN_HTTP_USER, CATAN_HTTP_TOKEN) and for stock git
#       (credential.helper in HOME's git config: a store, HOME/credentials,
#       holding the login for https://localhost:$HTTPS_PORT). With env,
#       only catan's; with none, neither (the caller gives them).
#   https_host_hang DIR on|off
#       while on, a request that fetches a pack (POST git-upload-pack) gets
#       no answer at all for 30 s: a server that stops answering mid-fetch
#       (the refs are still listed).
#   https_host_answer DIR FILE|off [v2]
#       while on, a POST git-upload-pack (with v2: one asking for protocol
#       version 2) is answered with FILE's bytes.
#   https_host_serve DIR NAME CATAN
#       CATAN host-hook serve --http for DIR/repos/NAME.git (the hook
#       installed first): catan peers' fetches and pushes (header
#       Catan-Peer) are answered by it; others, and all when it is not
#       running, by git-http-backend.
#   https_host_stop DIR
# Needs nginx, fcgiwrap, openssl and git (tools/deps.sh installs them).

https_host_ok() {
	command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || return 1
	command -v fcgiwrap >/dev/null 2>&1 || [[ -x /usr/sbin/fcgiwrap ]] || return 1
	command -v openssl >/dev/null 2>&1 || return 1
	[[ -x $(git --exec-path)/git-http-backend ]]
}

# _https_cert DIR NAME CN CA: a key and a certificate for CN (as a DNS
# subject alternative name too) signed by authority CA.
_https_cert() {
	local dir=$1 name=$2 cn=$3 ca=$4
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -keyout "$dir/$name.key" -out "$dir/$name.csr" \
		-subj "/CN=$cn" 2>/dev/null
	printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\n' "$cn" \
		>"$dir/$name.ext"
	openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.crt" \
		-CAkey "$dir/$ca.key" -CAcreateserial -days 2 \
		-extfile "$dir/$name.ext" -out "$dir/$name.crt" 2>/dev/null
}

# _https_expired DIR: DIR/expired.crt, for "localhost" signed by DIR/ca,
# valid only on 1 January 2020 (openssl ca takes past dates).
_https_expired() {
	local dir=$1
	: >"$dir/ca-index.txt"
	echo 01 >"$dir/ca-serial"
	printf '%s\n' "[ca]" "default_ca = d" "[d]" \
		"database = $dir/ca-index.txt" "new_certs_dir = $dir" \
		"serial = $dir/ca-serial" "default_md = sha256" "policy = p" \
		"[p]" "commonName = supplied" >"$dir/ca.cnf"
	openssl ca -batch -config "$dir/ca.cnf" -cert "$dir/ca.crt" \
		-keyfile "$dir/ca.key" -in "$dir/server.csr" \
		-out "$dir/expired.crt" -startdate 20200101000000Z \
		-enddate 20200102000000Z -extfile "$dir/server.ext" -notext \
		>/dev/null 2>&1
}

_https_ca() {
	local dir=$1 name=$2
	openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -keyout "$dir/$name.key" -out "$dir/$name.crt" -days 2 \
		-subj "/CN=catan test $name" 2>/dev/null
}

https_host_start() {
	local dir=$1 user=${2:-player} pass=${3:-secret} port backend
	local nginx fcgiwrap
	nginx=$(command -v nginx || echo /usr/sbin/nginx)
	fcgiwrap=$(command -v fcgiwrap || echo /usr/sbin/fcgiwrap)
	backend=$(git --exec-path)/git-http-backend
	mkdir -p "$dir/repos" "$dir/nginx-tmp" "$dir/logs"
	_https_ca "$dir" ca
	_https_ca "$dir" other-ca
	_https_cert "$dir" server localhost ca
	_https_expired "$dir"
	printf '%s:%s\n' "$user" "$(openssl passwd -apr1 "$pass")" >"$dir/htpasswd"
	# git-http-backend behind a switch that can make it hang.
	cat >"$dir/backend.sh" <<EOF
#!/bin/sh
if [ -e "$dir/hang" ] && [ "\$REQUEST_METHOD" = POST ]; then
	case \$PATH_INFO in */git-upload-pack) exec sleep 30 ;; esac
fi
if [ -e "$dir/answer" ] && [ "\$REQUEST_METHOD" = POST ] &&
	{ [ ! -e "$dir/answer-v2" ] || [ "\$GIT_PROTOCOL" = version=2 ]; }; then
	case \$PATH_INFO in */git-upload-pack)
		cat >/dev/null
		printf 'Content-Type: application/x-git-upload-pack-result\\r\\n\\r\\n'
		exec cat "$dir/answer" ;;
	esac
fi
exec "$backend"
EOF
	chmod +x "$dir/backend.sh"
	setsid "$fcgiwrap" -c 8 -s "unix:$dir/fcgi.sock" \
		>"$dir/logs/fcgiwrap.log" 2>&1 </dev/null &
	echo $! >"$dir/fcgiwrap.pid"
	for _ in $(seq 1 50); do
		[[ -S $dir/fcgi.sock ]] && break
		sleep 0.05
	done
	local userline=
	[[ $(id -u) == 0 ]] && userline="user root;"
	# (git.conf: how a request reaches git-http-backend)
	cat >"$dir/git.conf" <<EOF
# git-http-backend itself, unless the switch is on: a
# shell in front costs every request a process.
set \$script $backend;
if (-e $dir/hang) {
set \$script $dir/backend.sh;
}
if (-e $dir/answer) {
set \$script $dir/backend.sh;
}
fastcgi_pass unix:$dir/fcgi.sock;
fastcgi_buffering off;
fastcgi_request_buffering off;
fastcgi_read_timeout 60s;
fastcgi_param SCRIPT_FILENAME \$script;
fastcgi_param GIT_PROJECT_ROOT $dir/repos;
fastcgi_param GIT_HTTP_EXPORT_ALL 1;
fastcgi_param PATH_INFO \$catan_path;
fastcgi_param REMOTE_USER \$remote_user;
fastcgi_param QUERY_STRING \$query_string;
fastcgi_param REQUEST_METHOD \$request_method;
fastcgi_param CONTENT_TYPE \$content_type;
fastcgi_param CONTENT_LENGTH \$content_length;
fastcgi_param GIT_PROTOCOL \$http_git_protocol;
fastcgi_param HTTP_CONTENT_ENCODING \$http_content_encoding;
# After every push, receive-pack rewrites info/refs (the list of
# branches, as git update-server-info makes it): the cheap "anything
# new?" of a waiting peer, served as a plain file below.
fastcgi_param GIT_CONFIG_COUNT 1;
fastcgi_param GIT_CONFIG_KEY_0 receive.updateServerInfo;
fastcgi_param GIT_CONFIG_VALUE_0 true;
EOF
	for _ in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 20000))
		cat >"$dir/nginx.conf" <<EOF
$userline
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 512; }
http {
	# (what was asked, for the tests: which requests a sync made)
	access_log $dir/logs/access.log;
	client_body_temp_path $dir/nginx-tmp/body;
	fastcgi_temp_path $dir/nginx-tmp/fastcgi;
	proxy_temp_path $dir/nginx-tmp/proxy;
	uwsgi_temp_path $dir/nginx-tmp/uwsgi;
	scgi_temp_path $dir/nginx-tmp/scgi;
	server {
		listen 127.0.0.1:$port ssl;
		server_name localhost;
		# (the path git-http-backend serves: the request's own, also
		# after a rewrite)
		set \$catan_path \$uri;
		ssl_certificate $dir/server.crt;
		ssl_certificate_key $dir/server.key;
		auth_basic "catan games";
		auth_basic_user_file $dir/htpasswd;
		client_max_body_size 0;
		# NAME.git/info/refs without a query (the list of branches, not
		# the smart protocol's advertisement) is a plain file: nginx
		# sends it itself, no process started.
		location ~ /info/refs\$ {
			if (\$args = "") {
				rewrite ^ /.files\$uri last;
			}
			include $dir/git.conf;
		}
		location ^~ /.files/ {
			internal;
			alias $dir/repos/;
			default_type text/plain;
		}
		location / {
			include $dir/git.conf;
		}
		# A catan peer's fetch or push (its header Catan-Peer) goes
		# to the repository's \`catan host-hook serve --http\`; where
		# none serves (502), to git-http-backend as any other.
		location ~ ^/(?<catan_repo>[^/]+)\.git/(?<catan_svc>git-upload-pack|git-receive-pack)\$ {
			if (\$http_catan_peer) {
				rewrite ^ /.catan/\$catan_repo/\$catan_svc last;
			}
			include $dir/git.conf;
		}
		location ~ ^/\.catan/(?<catan_r>[^/]+)/(?<catan_s>[a-z-]+)\$ {
			internal;
			proxy_pass http://unix:$dir/repos/\$catan_r.git/catan-http.sock:/\$catan_s;
			proxy_set_header X-Catan-User \$remote_user;
			# (catan.log: the requests the server answered)
			access_log $dir/logs/access.log;
			access_log $dir/logs/catan.log;
			proxy_read_timeout 60s;
			proxy_intercept_errors on;
			error_page 502 = @git;
		}
		location @git {
			include $dir/git.conf;
		}
	}
	# The same repositories behind a certificate that has expired.
	server {
		listen 127.0.0.1:$((port + 1)) ssl;
		server_name localhost;
		set \$catan_path \$uri;
		ssl_certificate $dir/expired.crt;
		ssl_certificate_key $dir/server.key;
		auth_basic "catan games";
		auth_basic_user_file $dir/htpasswd;
		location / {
			include $dir/git.conf;
		}
	}
}
EOF
		"$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
			</dev/null >"$dir/logs/nginx.out" 2>&1 &
		echo $! >"$dir/nginx.master"
		for _ in $(seq 1 50); do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				HTTPS_PORT=$port
				HTTPS_URL=https://localhost:$port
				HTTPS_EXPIRED_PORT=$((port + 1))
				return 0
			fi
			kill -0 "$(cat "$dir/nginx.master")" 2>/dev/null || break
			sleep 0.05
		done
		kill "$(cat "$dir/nginx.master")" 2>/dev/null || true
		wait "$(cat "$dir/nginx.master")" 2>/dev/null || true
	done
	cat "$dir/logs/error.log" "$dir/logs/nginx.out" >&2
	https_host_stop "$dir"
	return 1
}

# _https_pct STRING: STRING percent-encoded, for a URL's user or password.
_https_pct() {
	local LC_ALL=C s=$1 out='' c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9._~-]) out+=$c ;;
		*) printf -v c '%%%02X' "'$c" && out+=$c ;;
		esac
	done
	printf '%s' "$out"
}

https_host_client() {
	local dir=$1 home=$2 user=$3 pass=$4 login=${5:-}
	case $login in
	'' | env | none) ;;
	*) echo "https_host_client: env or none, not $login" >&2 && return 2 ;;
	esac
	export HOME=$home GIT_CONFIG_NOSYSTEM=1
	unset GIT_SSL_CAINFO GIT_SSL_CAPATH SSL_CERT_FILE SSL_CERT_DIR \
		CATAN_HTTP_USER CATAN_HTTP_TOKEN GIT_ASKPASS SSH_ASKPASS
	mkdir -p "$HOME" "$dir"
	https_host_start "$dir" "$user" "$pass" || return
	[[ $login == none ]] && return 0
	export GIT_SSL_CAINFO=$dir/ca.crt CATAN_HTTP_USER=$user CATAN_HTTP_TOKEN=$pass
	[[ $login == env ]] && return 0
	git config --global credential.helper "store --file $HOME/credentials"
	printf 'https://%s:%s@localhost:%s\n' "$(_https_pct "$user")" \
		"$(_https_pct "$pass")" "$HTTPS_PORT" >"$HOME/credentials"
}

https_host_hang() {
	if [[ $2 == on ]]; then : >"$1/hang"; else rm -f "$1/hang"; fi
}

# https_host_answer DIR FILE|off [v2]: while on, every POST
# git-upload-pack (a fetch's pack) is answered with the bytes of FILE (a
# host that answers wrongly); with v2, only those that ask for protocol
# version 2 (Git-Protocol: version=2), the others served as usual.
https_host_answer() {
	rm -f "$1/answer" "$1/answer-v2"
	[[ $2 == off ]] && return 0
	[[ ${3:-} == v2 ]] && : >"$1/answer-v2"
	cp "$2" "$1/answer"
}

# https_host_serve DIR NAME CATAN: `CATAN host-hook serve --http` for
# DIR/repos/NAME.git (its hook installed first when it has none), so that
# catan peers' fetches and pushes there skip git-http-backend; stopped by
# https_host_stop.
https_host_serve() {
	local dir=$1 name=$2 catan=$3 repo=$1/repos/$2.git
	[[ -e $repo/hooks/pre-receive ]] || "$catan" host-hook install "$repo" >/dev/null
	"$catan" host-hook serve "$repo" --http >"$dir/logs/serve-$name.log" 2>&1 &
	echo $! >>"$dir/serve.pids"
	for _ in $(seq 1 100); do
		[[ -S $repo/catan-http.sock ]] && return 0
		sleep 0.05
	done
	cat "$dir/logs/serve-$name.log" >&2
	return 1
}

https_host_stop() {
	local dir=$1 pid
	if [[ -e $dir/serve.pids ]]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
		done <"$dir/serve.pids"
		rm -f "$dir/serve.pids"
	fi
	for f in nginx.master fcgiwrap.pid; do
		[[ -e $dir/$f ]] || continue
		pid=$(cat "$dir/$f")
		rm -f "$dir/$f"
		# fcgiwrap leads a process group of its own (setsid): its
		# children (a hanging backend) go with it.
		if [[ $f == fcgiwrap.pid ]]; then
			kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
		else
			kill "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
}
