/*
 * impure.c - a deliberately impure library: the purity check must reject
 * it (ctest core_purity_check_catches_io expects the check to fail).
 */
#include <stdio.h>

int catan_impure_probe(void);

int catan_impure_probe(void)
{
	return printf("the core must never do this\n");
}
