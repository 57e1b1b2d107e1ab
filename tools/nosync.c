/*
 * nosync.c - a benchmark helper, LD_PRELOAD'ed: fsync, fdatasync, syncfs
 * and sync return at once, without flushing anything, so that a run
 * beside one without it shows what the flushes of the disk's cache cost
 * (README, "What durability costs"). Never for real games: nothing
 * written under it survives a power cut.
 *
 *   LD_PRELOAD=build/libcatan-nosync.so build/catan-peers-bench --players 4
 */
#define _GNU_SOURCE

#include <unistd.h>

int fsync(int fd)
{
	(void)fd;
	return 0;
}

int fdatasync(int fd)
{
	(void)fd;
	return 0;
}

int syncfs(int fd)
{
	(void)fd;
	return 0;
}

void sync(void)
{
}
