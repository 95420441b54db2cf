#include "net/net.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Every address is held as 16 bytes: IPv4 as IPv4-mapped IPv6, so that one
 * prefix comparison serves both families. */
typedef struct {
  uint8_t addr[16];
  unsigned prefix; /* in bits of the 16-byte form */
  unsigned port;   /* 0: any port */
} AllowEntry;

struct LwNetGuard {
  AllowEntry *entries;
  int count;
};

typedef struct {
  const char *net;
  unsigned prefix;
  const char *name;
} Range;

/* IANA IPv4 special-purpose registry, plus multicast and the reserved 240/4. */
static const Range v4_ranges[] = {
  {"0.0.0.0", 8, "unspecified (this network)"},
  {"10.0.0.0", 8, "private"},
  {"100.64.0.0", 10, "shared address space (CGNAT)"},
  {"127.0.0.0", 8, "loopback"},
  {"169.254.0.0", 16, "link-local"},
  {"172.16.0.0", 12, "private"},
  {"192.0.0.0", 24, "IETF protocol assignments"},
  {"192.0.2.0", 24, "documentation (TEST-NET-1)"},
  {"192.88.99.0", 24, "6to4 relay anycast"},
  {"192.168.0.0", 16, "private"},
  {"198.18.0.0", 15, "benchmarking"},
  {"198.51.100.0", 24, "documentation (TEST-NET-2)"},
  {"203.0.113.0", 24, "documentation (TEST-NET-3)"},
  {"224.0.0.0", 4, "multicast"},
  {"240.0.0.0", 4, "reserved"},
};

/* Inside 2000::/3, the only global unicast block; everything outside it is
 * refused before these are looked at. */
static const Range v6_ranges[] = {
  {"2001::", 23, "IETF protocol assignments (Teredo, ORCHID, ...)"},
  {"2001:db8::", 32, "documentation"},
  {"3fff::", 20, "documentation"},
};

static bool prefix_match(const uint8_t *a, const uint8_t *net, unsigned bits)
{
  unsigned bytes = bits / 8;
  if (memcmp(a, net, bytes) != 0) {
    return false;
  }
  unsigned rest = bits % 8;
  if (rest == 0) {
    return true;
  }
  uint8_t mask = (uint8_t)(0xFF << (8 - rest));
  return (a[bytes] & mask) == (net[bytes] & mask);
}

static void v4_to_mapped(const uint8_t v4[4], uint8_t out[16])
{
  memset(out, 0, 10);
  out[10] = 0xFF;
  out[11] = 0xFF;
  memcpy(out + 12, v4, 4);
}

static bool is_mapped(const uint8_t a[16])
{
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  return memcmp(a, mapped, 12) == 0;
}

static const char *v4_range(const uint8_t v4[4])
{
  for (size_t i = 0; i < sizeof(v4_ranges) / sizeof(v4_ranges[0]); ++i) {
    uint8_t net[4];
    inet_pton(AF_INET, v4_ranges[i].net, net);
    if (prefix_match(v4, net, v4_ranges[i].prefix)) {
      return v4_ranges[i].name;
    }
  }
  return NULL;
}

static bool v6_in(const uint8_t a[16], const char *net_text, unsigned bits)
{
  uint8_t net[16];
  inet_pton(AF_INET6, net_text, net);
  return prefix_match(a, net, bits);
}

/* The range a 16-byte address is in, or NULL when it is public unicast. */
static const char *range_of(const uint8_t a[16])
{
  if (is_mapped(a)) {
    return v4_range(a + 12);
  }
  static const uint8_t zero[16] = {0};
  if (memcmp(a, zero, 16) == 0) {
    return "unspecified (::)";
  }
  if (memcmp(a, zero, 15) == 0 && a[15] == 1) {
    return "loopback (::1)";
  }
  if (v6_in(a, "64:ff9b::", 96)) { /* NAT64: judged by the IPv4 inside */
    const char *name = v4_range(a + 12);
    return name ? name : NULL;
  }
  if (v6_in(a, "fc00::", 7)) {
    return "unique local (fc00::/7)";
  }
  if (v6_in(a, "fe80::", 10)) {
    return "link-local (fe80::/10)";
  }
  if (v6_in(a, "fec0::", 10)) {
    return "site-local (fec0::/10)";
  }
  if (v6_in(a, "ff00::", 8)) {
    return "multicast (ff00::/8)";
  }
  if (!v6_in(a, "2000::", 3)) {
    return "reserved IPv6 (outside 2000::/3)";
  }
  if (v6_in(a, "2002::", 16)) { /* 6to4: the IPv4 sits in bytes 2..5 */
    return v4_range(a + 2);
  }
  for (size_t i = 0; i < sizeof(v6_ranges) / sizeof(v6_ranges[0]); ++i) {
    if (v6_in(a, v6_ranges[i].net, v6_ranges[i].prefix)) {
      return v6_ranges[i].name;
    }
  }
  return NULL;
}

/* Parses a numeric address (IPv4 dotted quad or IPv6) into 16 bytes. */
static bool parse_ip(const char *text, uint8_t out[16], bool *v4)
{
  uint8_t four[4];
  if (inet_pton(AF_INET, text, four) == 1) {
    v4_to_mapped(four, out);
    *v4 = true;
    return true;
  }
  *v4 = false;
  return inet_pton(AF_INET6, text, out) == 1;
}

static bool parse_uint(const char *s, unsigned max, unsigned *out)
{
  if (!*s || strlen(s) > 5) {
    return false;
  }
  unsigned v = 0;
  for (; *s; ++s) {
    if (!isdigit((unsigned char)*s)) {
      return false;
    }
    v = v * 10 + (unsigned)(*s - '0');
  }
  if (v > max) {
    return false;
  }
  *out = v;
  return true;
}

/* "ADDR[/LEN]" into an entry (port left alone). */
static bool parse_block(char *text, AllowEntry *e)
{
  char *slash = strchr(text, '/');
  if (slash) {
    *slash = '\0';
  }
  bool v4;
  if (!parse_ip(text, e->addr, &v4)) {
    return false;
  }
  unsigned max = v4 ? 32 : 128;
  unsigned len = max;
  if (slash && !parse_uint(slash + 1, max, &len)) {
    return false;
  }
  e->prefix = v4 ? 96 + len : len;
  return true;
}

static bool parse_entry(char *text, AllowEntry *e)
{
  e->port = 0;
  char *port = NULL;
  if (text[0] == '[') {
    char *close = strchr(text, ']');
    if (!close) {
      return false;
    }
    *close = '\0';
    if (close[1] == ':') {
      port = close + 2;
    } else if (close[1] != '\0') {
      return false;
    }
    ++text;
  } else {
    char *first = strchr(text, ':');
    if (first && !strchr(first + 1, ':')) { /* exactly one colon: v4:port */
      *first = '\0';
      port = first + 1;
    }
  }
  if (port && (!parse_uint(port, 65535, &e->port) || e->port == 0)) {
    return false;
  }
  return parse_block(text, e);
}

static char *trim(char *s)
{
  while (isspace((unsigned char)*s)) {
    ++s;
  }
  char *end = s + strlen(s);
  while (end > s && isspace((unsigned char)end[-1])) {
    *--end = '\0';
  }
  return s;
}

LwStatus lw_netguard_new(const char *allow_list, LwNetGuard **out, LwError *err)
{
  *out = NULL;
  LwNetGuard *g = calloc(1, sizeof(*g));
  char *copy = strdup(allow_list ? allow_list : "");
  size_t max = 1;
  for (const char *p = copy ? copy : ""; *p; ++p) {
    max += *p == ',';
  }
  if (g) {
    g->entries = calloc(max, sizeof(AllowEntry));
  }
  if (!g || !copy || !g->entries) {
    free(copy);
    lw_netguard_free(g);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *entry = trim(tok);
    if (!*entry) {
      continue;
    }
    char shown[128];
    snprintf(shown, sizeof(shown), "%s", entry);
    if (!parse_entry(entry, &g->entries[g->count])) {
      free(copy);
      lw_netguard_free(g);
      return lw_error_set(err, LW_ERR_USAGE,
                          "allow list: \"%s\" is not ADDRESS[/BITS][:PORT] "
                          "(IPv6 with a port in brackets: [::1]:8080)",
                          shown);
    }
    g->count++;
  }
  free(copy);
  *out = g;
  return LW_OK;
}

void lw_netguard_free(LwNetGuard *g)
{
  if (!g) {
    return;
  }
  free(g->entries);
  free(g);
}

int lw_netguard_allow_count(const LwNetGuard *g)
{
  return g ? g->count : 0;
}

LwStatus lw_netguard_check_scheme(const char *url, LwError *err)
{
  const char *colon = url ? strchr(url, ':') : NULL;
  size_t len = colon ? (size_t)(colon - url) : 0;
  if ((len == 4 && !strncasecmp(url, "http", 4)) ||
      (len == 5 && !strncasecmp(url, "https", 5))) {
    return LW_OK;
  }
  return lw_error_set(err, LW_ERR_REFUSED, "only http and https URLs are fetched: %.200s",
                      url ? url : "(null)");
}

static bool allowed(const LwNetGuard *g, const uint8_t a[16], unsigned port)
{
  for (int i = 0; g && i < g->count; ++i) {
    const AllowEntry *e = &g->entries[i];
    if ((e->port == 0 || e->port == port) && prefix_match(a, e->addr, e->prefix)) {
      return true;
    }
  }
  return false;
}

static LwStatus check_bytes(const LwNetGuard *g, const uint8_t a[16], unsigned port,
                            LwError *err)
{
  if (allowed(g, a, port)) {
    return LW_OK;
  }
  const char *range = range_of(a);
  char text[INET6_ADDRSTRLEN];
  if (is_mapped(a)) {
    inet_ntop(AF_INET, a + 12, text, sizeof(text));
  } else {
    inet_ntop(AF_INET6, a, text, sizeof(text));
  }
  if (range) {
    return lw_error_set(err, LW_ERR_REFUSED,
                        "address %s port %u is %s and not on the "
                        "allow list (--allow-net)",
                        text, port, range);
  }
  return LW_OK;
}

LwStatus lw_netguard_check_sockaddr(const LwNetGuard *g, const struct sockaddr *sa,
                                    LwError *err)
{
  uint8_t a[16];
  unsigned port;
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
    v4_to_mapped((const uint8_t *)&in->sin_addr, a);
    port = ntohs(in->sin_port);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
    memcpy(a, &in6->sin6_addr, 16);
    port = ntohs(in6->sin6_port);
  } else {
    return lw_error_set(err, LW_ERR_REFUSED, "address family %d is not IPv4 or IPv6",
                        sa->sa_family);
  }
  return check_bytes(g, a, port, err);
}

LwStatus lw_netguard_check_ip(const LwNetGuard *g, const char *ip, unsigned port,
                              LwError *err)
{
  uint8_t a[16];
  bool v4;
  if (!ip || !parse_ip(ip, a, &v4)) {
    return lw_error_set(err, LW_ERR_REFUSED, "\"%.100s\" is not a numeric address",
                        ip ? ip : "(null)");
  }
  return check_bytes(g, a, port, err);
}

const char *lw_netguard_range_name(const char *ip)
{
  uint8_t a[16];
  bool v4;
  if (!ip || !parse_ip(ip, a, &v4)) {
    return "not an address";
  }
  return range_of(a);
}
