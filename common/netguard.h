/*
 * Scheme and address rules for everything lodwash fetches (the SSRF guard).
 *
 * Only http and https URLs are fetched. A connection may only go to a public
 * unicast address: loopback, private (10/8, 172.16/12, 192.168/16), shared
 * (100.64/10), link-local, multicast, unspecified, broadcast, documentation,
 * benchmarking and other IANA special-purpose ranges are refused, and so are
 * their IPv6 equivalents (::1, ::, fc00::/7, fe80::/10, fec0::/10, ff00::/8,
 * 2001::/23, 2001:db8::/32, 100::/64, 3fff::/20, anything outside 2000::/3).
 * IPv4 inside IPv6 (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4
 * 2002::/16) is judged by the IPv4 address it carries.
 *
 * The check is made on the address actually connected to (http_fetch calls
 * lw_netguard_check_sockaddr from libcurl's socket callbacks), so a name
 * that resolves, or re-resolves, to a refused address does not get through.
 *
 * An allow list exempts addresses: a comma-separated list of addresses or
 * CIDR blocks, each optionally with a port, as in --allow-net /
 * LODWASH_ALLOW_NET:
 *
 *   127.0.0.1:8080, 10.0.0.0/8, ::1, [::1]:8080, [fd00::/8]:443, 192.168.1.7
 *
 * An IPv6 entry with a port is written in brackets. An entry without a port
 * matches every port. Nothing else (no host names) is accepted.
 */
#ifndef LW_NETGUARD_H
#define LW_NETGUARD_H

#include <stdbool.h>
#include <sys/socket.h>

#include "common/status.h"

typedef struct LwNetGuard LwNetGuard;

/* Parses allow_list (NULL or "" for none) into a new guard owned by the
 * caller (lw_netguard_free). A bad entry is LW_ERR_USAGE naming the entry. */
LwStatus lw_netguard_new(const char *allow_list, LwNetGuard **out, LwError *err);

/* NULL safe. */
void lw_netguard_free(LwNetGuard *guard);

/* Number of allow-list entries (for logs and tests). */
int lw_netguard_allow_count(const LwNetGuard *guard);

/* LW_OK if url's scheme is http or https (any case), else LW_ERR_REFUSED. */
LwStatus lw_netguard_check_scheme(const char *url, LwError *err);

/* LW_OK if a connection to the address and port may be made: the allow list
 * exempts it, or it is public. Else LW_ERR_REFUSED saying which range it is
 * in. guard may be NULL (no allow list). */
LwStatus lw_netguard_check_sockaddr(const LwNetGuard *guard,
                                    const struct sockaddr *addr, LwError *err);

/* The same for a numeric IPv4 or IPv6 address in text ("10.0.0.1", "::1");
 * anything that is not a numeric address is LW_ERR_REFUSED. */
LwStatus lw_netguard_check_ip(const LwNetGuard *guard, const char *ip,
                              unsigned port, LwError *err);

/* The special-purpose range a numeric address is in ("loopback",
 * "private", ...), or NULL for a public unicast address. For tests and
 * messages; rules only, no allow list. */
const char *lw_netguard_range_name(const char *ip);

#endif
