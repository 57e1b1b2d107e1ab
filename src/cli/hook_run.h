/*
 * hook_run.h - the pre-receive hook's check (hook_run.c), shared by
 * `catan host-hook run` (hook.c) and catan-hook (hook_main.c).
 */
#ifndef CATAN_CLI_HOOK_RUN_H
#define CATAN_CLI_HOOK_RUN_H

#include <stdbool.h>
#include <stdio.h>

/* Reads git's updates from standard input and checks them: 0 to accept,
 * 1 to refuse (the reason on standard error). */
int cli_hook_run(void);

/* The same check of the update lines of `in`, the reason written to say. */
int cli_hook_check(FILE *in, FILE *say);

/*
 * catan host-hook serve BARE: answers the checks of catan-hook-client
 * (hook_client.c) over BARE/catan-hook.sock, one push at a time, until
 * SIGINT or SIGTERM; with http, also the HTTP requests of catan peers
 * (git-upload-pack in protocol version 2, git-receive-pack) that the web
 * server passes on over BARE/catan-http.sock. 0, or 1 with the reason on
 * standard error.
 */
int cli_hook_serve(const char *bare, bool http);

#endif
