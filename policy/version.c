/* version.c: the library's version string. */
#include "config.h"

#include "policy/axpolicy.h"

const char *
axp_version(void)
{
	return PACKAGE_VERSION;
}
