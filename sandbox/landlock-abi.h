/*
 * landlock-abi.h: the Landlock user-space ABI, up to ABI 7.
 *
 * Shipped here because distro kernel headers lag the running kernel (an
 * ABI-2 <linux/landlock.h> has no handled_access_net, no scoped, no
 * TRUNCATE).  Names carry an SBX_ prefix so they never clash with a newer
 * system header.  Values are the kernel's UAPI (include/uapi/linux/
 * landlock.h) and never change once released.
 */
#ifndef AXG_SANDBOX_LANDLOCK_ABI_H
#define AXG_SANDBOX_LANDLOCK_ABI_H

#include <stdint.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* landlock_create_ruleset() flags */
#define SBX_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define SBX_LANDLOCK_CREATE_RULESET_ERRATA  (1U << 1)

/* Ruleset attributes; the kernel takes a size, so a shorter prefix of this
 * struct is what older kernels understand (ABI < 4: fs only; < 6: no
 * scoped). */
struct sbx_landlock_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;	     /* ABI 6 */
};

/* Rule types */
#define SBX_LANDLOCK_RULE_PATH_BENEATH 1
#define SBX_LANDLOCK_RULE_NET_PORT     2 /* ABI 4 */

struct sbx_landlock_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct sbx_landlock_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

/* Filesystem rights */
#define SBX_LL_FS_EXECUTE     (1ULL << 0)
#define SBX_LL_FS_WRITE_FILE  (1ULL << 1)
#define SBX_LL_FS_READ_FILE   (1ULL << 2)
#define SBX_LL_FS_READ_DIR    (1ULL << 3)
#define SBX_LL_FS_REMOVE_DIR  (1ULL << 4)
#define SBX_LL_FS_REMOVE_FILE (1ULL << 5)
#define SBX_LL_FS_MAKE_CHAR   (1ULL << 6)
#define SBX_LL_FS_MAKE_DIR    (1ULL << 7)
#define SBX_LL_FS_MAKE_REG    (1ULL << 8)
#define SBX_LL_FS_MAKE_SOCK   (1ULL << 9)
#define SBX_LL_FS_MAKE_FIFO   (1ULL << 10)
#define SBX_LL_FS_MAKE_BLOCK  (1ULL << 11)
#define SBX_LL_FS_MAKE_SYM    (1ULL << 12)
#define SBX_LL_FS_REFER	      (1ULL << 13) /* ABI 2 */
#define SBX_LL_FS_TRUNCATE    (1ULL << 14) /* ABI 3 */
#define SBX_LL_FS_IOCTL_DEV   (1ULL << 15) /* ABI 5 */

/* Network rights (ABI 4) */
#define SBX_LL_NET_BIND_TCP    (1ULL << 0)
#define SBX_LL_NET_CONNECT_TCP (1ULL << 1)

/* landlock_restrict_self() flags (ABI 7) */
#define SBX_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF	(1U << 0)
#define SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON	(1U << 1)
#define SBX_LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

/* Scopes (ABI 6) */
#define SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SBX_LL_SCOPE_SIGNAL		  (1ULL << 1)

#endif /* AXG_SANDBOX_LANDLOCK_ABI_H */
