/*
 * cli.h - private helpers of the catan command.
 */
#ifndef CATAN_CLI_H
#define CATAN_CLI_H

#include <stdio.h>

#include "catan/action.h"
#include "catan/board.h"
#include "catan/state.h"

/* Prints the board as text: terrain, token and robber per tile, by row
 * (s may be NULL: the robber is then on its starting tile). */
void cli_print_board(FILE *f, const catan_board *b, const catan_state *s);

/*
 * Draws the board as hexagons with the pieces of `s` (may be NULL):
 * terrain, numbers, robber, harbours, settlements, cities and roads.
 */
void cli_draw_board(FILE *f, const catan_board *b, const catan_state *s);

/* Prints one line per player: VP, cards, pieces, trophies. */
void cli_print_scores(FILE *f, const catan_board *b, const catan_state *s,
		      const catan_names *names);

/*
 * Parses a whole decimal number in [lo, hi] given for option `opt`; prints
 * a sentence naming the option and the value and returns -1 if it is not.
 */
int cli_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		  uint64_t *out);

/*
 * Sets opt->special_build from --special-build (asked 1), --no-special-build
 * (0) or neither (-1: on for 5-6 players, as the official rules have it).
 * Asked for with 2-4 players, prints a sentence for `cmd` and returns -1.
 */
int cli_special_build(catan_options *opt, int asked, const char *cmd);

/*
 * Says on stderr why the board file `file` was refused, as command cmd:
 * "CMD: FILE:LINE: why", without the line when the file as a whole is
 * wrong (e->line 0).
 */
struct catan_boardfile_error;
void cli_boardfile_error(const char *cmd, const char *file,
			 const struct catan_boardfile_error *e);

/* Keys (keys.c): `catan key`, the default key file, a --seat's key. */
int cli_key(const char *dir, int argc, char **argv);
/* catan host-hook (hook.c). */
int cli_host_hook(int argc, char **argv);
int cli_default_key(char *out, size_t n);
int cli_read_pubkey(unsigned char pk[32], const char *what, char *why,
		    size_t whylen);

/* The Git-backed subcommands (game.c); dir is the -C argument. */
int cli_new(int argc, char **argv);
int cli_act(const char *dir, int argc, char **argv);
int cli_show(const char *dir, int argc, char **argv);
int cli_status(const char *dir, int argc, char **argv);
int cli_legal(const char *dir, int argc, char **argv);
int cli_log(const char *dir, int argc, char **argv);
int cli_verify(const char *dir, int argc, char **argv);
int cli_gc(const char *dir, int argc, char **argv);
int cli_simulate(int argc, char **argv);
int cli_join(int argc, char **argv);
int cli_remote(const char *dir, int argc, char **argv);
int cli_sync(const char *dir, int argc, char **argv);
int cli_bundle(const char *dir, int argc, char **argv);
int cli_step(const char *dir, int argc, char **argv);
int cli_serve(const char *dir, int argc, char **argv);
int cli_peer(const char *dir, int argc, char **argv);
int cli_stats(int argc, char **argv);
int cli_tournament(int argc, char **argv);

/* The window: catan render, play, replay. In catan-window they are
 * window.c; in catan, which links no SDL, window_exec.c runs catan-window
 * with the same arguments. */
int cli_render(const char *dir, int argc, char **argv);
int cli_play(const char *dir, int argc, char **argv);
int cli_replay(const char *dir, int argc, char **argv);

/*
 * This program's own path (self.c), into out (size n): 0, or -1 when
 * /proc/self/exe cannot be read or the path does not fit.
 */
int cli_self(char *out, size_t n);

/*
 * The path of the program `name` in the folder this program runs from
 * (self.c), into out (size n). 0, or -1 when /proc/self/exe cannot be read
 * or the path does not fit. Whether the program is there is not checked.
 */
int cli_beside_self(const char *name, char *out, size_t n);

/* catan board show|generate (board.c). */
int cli_board(int argc, char **argv);

/* ---- seats played by agents (agents.c) ---- */
#include "catan/agent.h"
/* What a seat plays after its agent was kicked (--on-kick). */
enum { CLI_KICK_MVM, CLI_KICK_RANDOM, CLI_KICK_GREEDY, CLI_KICK_STOP };
typedef struct cli_agent_opts {
	catan_agent_limits lim;
	int on_kick;
} cli_agent_opts;
typedef struct cli_seat {
	const char *cmd; /* agent command, "greedy"/"random", or NULL: greedy */
	catan_agent *agent;
	bool kicked;
} cli_seat;
void cli_agent_opts_default(cli_agent_opts *o);
/*
 * Reads option a (value v) if it is one of --on-kick, --agent-timeout,
 * --agent-memory, --agent-threads: 1 (value used), 0 (not ours), -1 (bad
 * value; a sentence printed).
 */
int cli_agent_opt(cli_agent_opts *o, const char *cmd, const char *a,
		  const char *v);
/*
 * The move of seat `me`: from its agent (started on first use), or after a
 * kick (printed once: "kicked: ...") from the --on-kick replacement.
 * Returns CATAN_OK, or non-zero when there is no move (--on-kick stop).
 */
int cli_seat_move(cli_seat *seat, const cli_agent_opts *o, catan_action *out,
		  const catan_board *b, const catan_state *s,
		  const catan_names *names, int me);
/* After the seat's action was applied: its private result to the agent. */
void cli_seat_done(cli_seat *seat, const catan_state *after,
		   const catan_action *a, const catan_outcome *oc);
/* END to the agent if the game is over, then stop and reap it. */
void cli_seat_free(cli_seat *seat, const catan_state *s);
/* catan host (agents.c). */
int cli_host(const char *dir, int argc, char **argv);
#endif
