/*
 * axpolicy.h: the public face of axgate's Rego policy engine (libaxpolicy).
 *
 * Every exported symbol starts with axp_.  Structures are opaque.
 */
#ifndef AXPOLICY_H
#define AXPOLICY_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, as "MAJOR.MINOR.PATCH". */
const char *axp_version(void);

#ifdef __cplusplus
}
#endif

#endif /* AXPOLICY_H */
