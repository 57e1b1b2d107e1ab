/*
 * hook_main.c - catan-hook: the program a game repository's pre-receive
 * hook runs (catan host-hook install writes the hook to exec it when it
 * sits beside catan), the same check as `catan host-hook run` without
 * the window's libraries to load.
 */
#include "hook_run.h"

int main(void)
{
	return cli_hook_run();
}
