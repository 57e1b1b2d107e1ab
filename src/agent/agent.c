/*
 * agent.c - the agent runtime: one agent process per seat, connected by a
 * socketpair, held to the limits BEGIN announced, kicked when it breaks the
 * protocol (spec/agents.md, "Server state machine").
 *
 * Limits:
 *  - time: every wait for the agent has a deadline (poll), HELLO and every
 *    move timeout_secs each;
 *  - memory: RLIMIT_AS of memory_limit MiB, set in the child between fork
 *    and exec (posix_spawn cannot set a limit in the child alone, and
 *    setting it in the parent around the spawn would limit the parent);
 *  - threads: RLIMIT_NPROC counts every process of the user, so it cannot
 *    express "this agent's threads" when other programs of the same user
 *    run; instead the runtime reads the agent's thread count from
 *    /proc/PID/status after every move and kicks it when over the limit.
 *    Processes the agent forks are in its process group, which a kick or
 *    the end kills as a whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catan/agent.h"

/* Seconds an agent has to answer HELLO, at least. */
#define CATAN_AGENT_START_SECS 10

struct catan_agent {
	int fd;
	int status_fd; /* /proc/PID/status, or -1 */
	pid_t pid;     /* 0 once reaped */
	int seat;
	catan_agent_limits lim;
	catan_msg_begin begin;
	uint8_t in[256];
	size_t inlen;
	int last_turn; /* turn of the last TURN sent, -1 before */
	bool kicked;
	char why[256];
	long moves;
	double seconds;
	bool has_counter;
	catan_msg counter;
};

void catan_agent_limits_default(catan_agent_limits *out)
{
	out->timeout_secs = 5;
	out->thread_limit = 4;
	out->memory_limit = 1024;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Kills the process group and reaps the child; status into *status. */
static void reap(catan_agent *a, int *status)
{
	int st = 0;
	if (a->pid > 0) {
		kill(-a->pid, SIGKILL);
		kill(a->pid, SIGKILL);
		while (waitpid(a->pid, &st, 0) < 0 && errno == EINTR)
			;
		a->pid = 0;
	}
	if (status)
		*status = st;
}

static void close_fd(catan_agent *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	if (a->status_fd >= 0)
		close(a->status_fd);
	a->status_fd = -1;
}

static void send_raw(catan_agent *a, const catan_msg *m, double deadline);

static void kick(catan_agent *a, const char *fmt, ...)
{
	if (a->kicked)
		return;
	a->kicked = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->why, sizeof a->why, fmt, ap);
	va_end(ap);
	if (a->fd >= 0) /* best effort: it may be gone or not reading */
		send(a->fd, (uint8_t[]){CATAN_MSG_KICK, (uint8_t)a->seat}, 2,
		     MSG_NOSIGNAL | MSG_DONTWAIT);
	close_fd(a);
	reap(a, NULL);
}

void catan_agent_kick(catan_agent *a, const char *why)
{
	if (a)
		kick(a, "%s", why);
}

const char *catan_agent_kicked(const catan_agent *a)
{
	return a && a->kicked ? a->why : NULL;
}

void catan_agent_stats(const catan_agent *a, long *moves, double *seconds)
{
	*moves = a->moves;
	*seconds = a->seconds;
}

/* After EOF: how the process ended, if it did within 0.3 s. */
static void describe_exit(catan_agent *a, char *buf, size_t size)
{
	int st = 0;
	pid_t r = 0;
	buf[0] = 0;
	for (int i = 0; i < 30 && a->pid > 0; i++) {
		r = waitpid(a->pid, &st, WNOHANG);
		if (r != 0)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	if (r == a->pid) {
		a->pid = 0;
		if (WIFEXITED(st))
			snprintf(buf, size, " (exited with status %d)",
				 WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			snprintf(buf, size, " (killed by signal %d, %s)",
				 WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
}

static void send_raw(catan_agent *a, const catan_msg *m, double deadline)
{
	uint8_t buf[CATAN_MSG_MAX];
	int n = catan_msg_encode(buf, sizeof buf, m, &a->begin);
	if (n < 0) {
		kick(a, "internal: cannot encode %s", catan_msg_name(m->type));
		return;
	}
	size_t off = 0;
	while (off < (size_t)n && a->fd >= 0) {
		ssize_t w = send(a->fd, buf + off, (size_t)n - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			double left = deadline - now_s();
			struct pollfd p = {a->fd, POLLOUT, 0};
			if (left <= 0 ||
			    poll(&p, 1, (int)(left * 1000) + 1) == 0) {
				kick(a,
				     "does not read its messages (%s "
				     "not taken within %u s)",
				     catan_msg_name(m->type),
				     a->lim.timeout_secs);
				return;
			}
			continue;
		}
		char ex[96];
		describe_exit(a, ex, sizeof ex);
		kick(a, "closed its connection%s", ex);
		return;
	}
}

/* Which types an agent may ever send. */
static bool agent_sends(int t)
{
	switch (t) {
	case CATAN_MSG_HELLO:
	case CATAN_MSG_ROLL:
	case CATAN_MSG_PLAY:
	case CATAN_MSG_BUILD:
	case CATAN_MSG_TRADE:
	case CATAN_MSG_TRADE_ACCEPT:
	case CATAN_MSG_TRADE_REJECT:
	case CATAN_MSG_PASS:
	case CATAN_MSG_ROB:
	case CATAN_MSG_PLACE:
	case CATAN_MSG_DISCARD:
		return true;
	}
	return false;
}

/*
 * Reads one message before `deadline`. Returns true with it in *m, or
 * kicks the agent (garbage, a server-only type, EOF, timeout) and returns
 * false. `what` names what was awaited, for the kick's sentence.
 */
static bool recv_msg(catan_agent *a, catan_msg *m, double deadline,
		     const char *what)
{
	double start = now_s();
	for (;;) {
		if (a->fd < 0)
			return false;
		if (a->inlen > 0) {
			if (!strcmp(catan_msg_name(a->in[0]), "?")) {
				kick(a,
				     "sent garbage: byte 0x%02x is no "
				     "message type (waiting for %s)",
				     a->in[0], what);
				return false;
			}
			if (!agent_sends(a->in[0])) {
				kick(a,
				     "sent %s, which only the server sends, "
				     "while the server waited for %s",
				     catan_msg_name(a->in[0]), what);
				return false;
			}
			char why[160];
			int n = catan_msg_decode(m, a->in, a->inlen, &a->begin,
						 why, sizeof why);
			if (n > 0) {
				memmove(a->in, a->in + n, a->inlen - (size_t)n);
				a->inlen -= (size_t)n;
				return true;
			}
			if (n < 0) {
				kick(a, "sent garbage: %s", why);
				return false;
			}
			if (a->inlen == sizeof a->in) {
				kick(a, "sent an over-long %s",
				     catan_msg_name(a->in[0]));
				return false;
			}
		}
		double left = deadline - now_s();
		struct pollfd p = {a->fd, POLLIN, 0};
		int pr = left > 0 ? poll(&p, 1, (int)(left * 1000) + 1) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0 && now_s() >= deadline) {
			kick(a, "timed out: waited %.0f s for %s",
			     deadline - start, what);
			return false;
		}
		if (pr <= 0)
			continue;
		ssize_t r = recv(a->fd, a->in + a->inlen,
				 sizeof a->in - a->inlen, MSG_DONTWAIT);
		if (r > 0) {
			a->inlen += (size_t)r;
		} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
			char ex[96];
			describe_exit(a, ex, sizeof ex);
			kick(a,
			     "closed its connection while the server "
			     "waited for %s%s",
			     what, ex);
			return false;
		}
	}
}

/*
 * In the child between fork and exec: only async-signal-safe calls (the
 * parent may have threads), so the command line is made before the fork.
 */
static void child(int sock, const char *line, const catan_agent_limits *lim)
{
	setpgid(0, 0);
	if (dup2(sock, 0) < 0 || dup2(sock, 1) < 0)
		_exit(126);
	long maxfd = sysconf(_SC_OPEN_MAX);
	if (maxfd < 0 || maxfd > 4096)
		maxfd = 4096;
	for (int fd = 3; fd < maxfd; fd++)
		close(fd);
	struct rlimit rl;
	rl.rlim_cur = rl.rlim_max = (rlim_t)lim->memory_limit << 20;
	if (lim->memory_limit) /* 0: none (an agent built with ASan) */
		setrlimit(RLIMIT_AS, &rl);
	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	signal(SIGPIPE, SIG_DFL);
	execl("/bin/sh", "sh", "-c", line, (char *)NULL);
	_exit(127);
}

static void fill_setup(catan_msg *m, catan_msg_begin *bg, const catan_board *b,
		       const catan_state *s, int seat,
		       const catan_agent_limits *lim)
{
	memset(bg, 0, sizeof *bg);
	bg->timeout_secs = lim->timeout_secs;
	bg->thread_limit = lim->thread_limit;
	bg->memory_limit = lim->memory_limit;
	bg->board_radius = b->radius;
	bg->player_id = (uint8_t)seat;
	bg->cell_count = b->ntiles;
	bg->harbour_count = b->nharbours;
	bg->player_count = s->opt.nplayers;
	memset(m, 0, sizeof *m);
	m->type = CATAN_MSG_SETUP;
	catan_msg_setup *su = &m->u.setup;
	for (int t = 0; t < b->ntiles; t++) {
		su->cells[t].pos.q = b->tile_hex[t].q;
		su->cells[t].pos.r = b->tile_hex[t].r;
		su->cells[t].type =
		    b->tile_terrain[t] == CATAN_DESERT
			? CATAN_WIRE_DESERT
			: (uint8_t)catan_wire_res(b->tile_terrain[t]);
		su->cells[t].counter = b->tile_token[t];
	}
	for (int h = 0; h < b->nharbours; h++) {
		int e = b->harbour_edge[h], k = b->harbour_kind[h];
		for (int j = 0; j < 2; j++) {
			int v = b->edge_vertices[e][j];
			catan_wpos p = {b->vertex_hex[v].q, b->vertex_hex[v].r,
					b->vertex_dir[v]};
			if (j == 0)
				su->harbours[h].vert1 = p;
			else
				su->harbours[h].vert2 = p;
		}
		su->harbours[h].resource = k == CATAN_HARBOUR_GENERIC
					       ? CATAN_WIRE_ANY
					       : (uint8_t)catan_wire_res(k);
		su->harbours[h].cost = k == CATAN_HARBOUR_GENERIC ? 3 : 2;
	}
	/* Set-up placements are the agents' own moves (PLACE): none yet. */
	catan_wpos none = {CATAN_WIRE_NOPOS, CATAN_WIRE_NOPOS, 0};
	for (int p = 0; p < s->opt.nplayers; p++) {
		su->players[p].id = (uint8_t)p;
		su->players[p].house1 = su->players[p].house2 = none;
		su->players[p].road1 = su->players[p].road2 = none;
	}
}

int catan_agent_start(catan_agent **out, const char *cmd,
		      const catan_agent_limits *lim, const catan_board *board,
		      const catan_state *s, int seat, char *why, size_t whysize)
{
	*out = NULL;
	if (!cmd || !*cmd || lim->timeout_secs < 1 || lim->thread_limit < 1 ||
	    seat < 0 || seat >= s->opt.nplayers) {
		snprintf(why, whysize, "bad agent command or limits");
		return CATAN_E_BAD_OPTION;
	}
	catan_agent *a = calloc(1, sizeof *a);
	if (!a) {
		snprintf(why, whysize, "out of memory");
		return CATAN_E_CAPACITY;
	}
	a->fd = -1;
	a->status_fd = -1;
	a->seat = seat;
	a->lim = *lim;
	a->last_turn = -1;
	size_t len = strlen(cmd) + 6;
	char *line = malloc(len);
	int sv[2];
	if (!line) {
		snprintf(why, whysize, "out of memory");
		free(a);
		return CATAN_E_CAPACITY;
	}
	snprintf(line, len, "exec %s", cmd);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, whysize, "socketpair: %s", strerror(errno));
		free(line);
		free(a);
		return CATAN_E_CAPACITY;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whysize, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		free(line);
		free(a);
		return CATAN_E_CAPACITY;
	}
	if (pid == 0)
		child(sv[1], line, lim);
	free(line);
	close(sv[1]);
	setpgid(pid, pid); /* as the child does: no race either way */
	a->pid = pid;
	a->fd = sv[0];

	catan_msg m, bg;
	/* Starting an interpreter may take longer than a move: HELLO gets
	 * at least CATAN_AGENT_START_SECS. */
	double deadline = now_s() + (lim->timeout_secs > CATAN_AGENT_START_SECS
					 ? lim->timeout_secs
					 : CATAN_AGENT_START_SECS);
	m.type = CATAN_MSG_HELLO;
	m.u.hello.version = CATAN_AGENT_VERSION;
	send_raw(a, &m, deadline);
	if (recv_msg(a, &m, deadline, "HELLO")) {
		if (m.type != CATAN_MSG_HELLO)
			kick(a, "sent %s before HELLO", catan_msg_name(m.type));
		else if (m.u.hello.version != CATAN_AGENT_VERSION)
			kick(a, "speaks protocol version %u, not %d",
			     m.u.hello.version, CATAN_AGENT_VERSION);
	}
	fill_setup(&m, &a->begin, board, s, seat, lim);
	bg.type = CATAN_MSG_BEGIN;
	bg.u.begin = a->begin;
	if (!a->kicked)
		send_raw(a, &bg, deadline + lim->timeout_secs);
	if (!a->kicked)
		send_raw(a, &m, deadline + lim->timeout_secs);
	*out = a;
	return CATAN_OK;
}

/*
 * Threads of the agent's process, from /proc/PID/status (kept open: one
 * pread per move); -1 when unknown.
 */
static int threads_of(catan_agent *a)
{
	char buf[2048];
	if (a->status_fd < 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/status", (int)a->pid);
		a->status_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (a->status_fd < 0)
			return -1;
	}
	ssize_t n = pread(a->status_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *t = strstr(buf, "\nThreads:");
	return t ? atoi(t + 9) : -1;
}

/* Bytes waiting from the agent when nothing was asked: a kick. */
static bool stray_bytes(catan_agent *a)
{
	struct pollfd p = {a->fd, POLLIN, 0};
	if (a->inlen > 0) {
		kick(a, "sent %s when no move was asked",
		     catan_msg_name(a->in[0]));
		return true;
	}
	if (poll(&p, 1, 0) > 0) {
		uint8_t c;
		ssize_t r = recv(a->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		if (r > 0) {
			kick(a, "sent %s when no move was asked",
			     catan_msg_name(c));
			return true;
		}
		if (r == 0) {
			char ex[96];
			describe_exit(a, ex, sizeof ex);
			kick(a, "closed its connection%s", ex);
			return true;
		}
	}
	return false;
}

int catan_agent_choose(catan_agent *a, catan_action *out, const catan_board *b,
		       const catan_state *s, int actor, unsigned flags)
{
	(void)flags;
	if (!a || a->kicked)
		return CATAN_E_BAD_ACTION;
	if (actor != a->seat) {
		kick(a, "internal: asked for seat %d's move", actor);
		return CATAN_E_BAD_ACTION;
	}
	if (stray_bytes(a))
		return CATAN_E_BAD_ACTION;
	double t0 = now_s(), deadline = t0 + a->lim.timeout_secs;
	catan_msg m;
	if (s->turn != a->last_turn) {
		m.type = CATAN_MSG_TURN;
		m.u.turn.player_id = s->active;
		send_raw(a, &m, deadline);
		a->last_turn = s->turn;
	}
	catan_agent_view(&m, b, s, actor);
	send_raw(a, &m, deadline);
	if (a->kicked || !recv_msg(a, &m, deadline, "its move"))
		return CATAN_E_BAD_ACTION;
	double t1 = now_s();
	char why[160];
	catan_action act;
	if (catan_agent_msg_action(&act, b, s, actor, &m, why, sizeof why)) {
		kick(a, "sent a move that is no action: %s", why);
		return CATAN_E_BAD_ACTION;
	}
	catan_state probe;
	int rc = catan_state_apply(&probe, b, s, actor, &act, NULL);
	if (rc) {
		kick(a, "sent an illegal %s: %s", catan_msg_name(m.type),
		     catan_error_str(rc));
		return CATAN_E_BAD_ACTION;
	}
	int nt = threads_of(a);
	if (nt > (int)a->lim.thread_limit) {
		kick(a, "runs %d threads (limit %u)", nt, a->lim.thread_limit);
		return CATAN_E_BAD_ACTION;
	}
	if (m.type == CATAN_MSG_TRADE && act.kind == CATAN_ACT_TRADE_REJECT) {
		a->has_counter = true;
		a->counter = m;
	}
	a->moves++;
	a->seconds += t1 - t0;
	*out = act;
	return CATAN_OK;
}

bool catan_agent_take_counter(catan_agent *a, catan_msg *out)
{
	if (!a || !a->has_counter)
		return false;
	*out = a->counter;
	a->has_counter = false;
	return true;
}

void catan_agent_send(catan_agent *a, const catan_msg *m)
{
	if (a && !a->kicked)
		send_raw(a, m, now_s() + a->lim.timeout_secs);
}

void catan_agent_result(catan_agent *a, const catan_state *after,
			const catan_action *done, const catan_outcome *oc)
{
	catan_msg m;
	if (!a || a->kicked || !oc)
		return;
	switch (done->kind) {
	case CATAN_ACT_ROLL:
		m.type = CATAN_MSG_ROLL_RESULT;
		m.u.roll_result.roll = (uint8_t)(oc->dice[0] + oc->dice[1]);
		break;
	case CATAN_ACT_BUY_DEV:
		m.type = CATAN_MSG_BUILD_RESULT;
		m.u.build_result.type = CATAN_WIRE_DEVCARD;
		m.u.build_result.card = oc->drawn;
		break;
	case CATAN_ACT_ROBBER:
	case CATAN_ACT_PLAY_KNIGHT:
		if (done->player == CATAN_NONE)
			return;
		m.type = CATAN_MSG_ROB_RESULT;
		m.u.rob_result.player_id = (uint8_t)a->seat;
		m.u.rob_result.target_id = done->player;
		m.u.rob_result.card = (uint8_t)catan_wire_res(oc->stolen);
		break;
	default:
		return;
	}
	(void)after;
	send_raw(a, &m, now_s() + a->lim.timeout_secs);
}

void catan_agent_end(catan_agent *a, int winner)
{
	if (!a || a->kicked || a->fd < 0)
		return;
	catan_msg m;
	m.type = CATAN_MSG_END;
	m.u.end.winner_id = (uint8_t)winner;
	send_raw(a, &m, now_s() + 1);
	/* Give it up to a second to leave on its own (its end of the socket
	 * closes as it exits), then make sure. */
	if (a->fd >= 0) {
		struct pollfd p = {a->fd, POLLIN, 0};
		shutdown(a->fd, SHUT_WR);
		double deadline = now_s() + 1;
		uint8_t junk[64];
		while (poll(&p, 1, (int)((deadline - now_s()) * 1000) + 1) >
			   0 &&
		       recv(a->fd, junk, sizeof junk, MSG_DONTWAIT) > 0 &&
		       now_s() < deadline)
			;
	}
	for (int i = 0; i < 50 && a->pid > 0; i++) {
		if (waitpid(a->pid, NULL, WNOHANG) == a->pid) {
			a->pid = 0;
			break;
		}
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	close_fd(a);
	reap(a, NULL);
}

void catan_agent_free(catan_agent *a)
{
	if (!a)
		return;
	close_fd(a);
	reap(a, NULL);
	free(a);
}
