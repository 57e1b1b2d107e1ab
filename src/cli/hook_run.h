/*
 * hook_run.h - the pre-receive hook's check (hook_run.c), shared by
 * `catan host-hook run` (hook.c) and catan-hook (hook_main.c).
 */
#ifndef CATAN_CLI_HOOK_RUN_H
#define CATAN_CLI_HOOK_RUN_H

/* Reads git's updates from standard input and checks them: 0 to accept,
 * 1 to refuse (the reason on standard error). */
int cli_hook_run(void);

#endif
