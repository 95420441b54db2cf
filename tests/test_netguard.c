/* The SSRF guard: which schemes and addresses a fetch may reach, and how the
 * allow list (--allow-net) exempts exactly what it names. */
#include "net/net.h"
#include "tests/support/check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static void check_refused(const char *ip)
{
  LwError err;
  LwStatus st = lw_netguard_check_ip(NULL, ip, 80, &err);
  lw_test_report(st == LW_ERR_REFUSED, __FILE__, __LINE__, "refused", ip);
  lw_test_report(st != LW_ERR_REFUSED ||
                   strstr(err.message, "not on the allow list") != NULL,
                 __FILE__, __LINE__, "message says why", err.message);
}

static void check_public(const char *ip)
{
  LwError err;
  LwStatus st = lw_netguard_check_ip(NULL, ip, 443, &err);
  lw_test_report(st == LW_OK, __FILE__, __LINE__, "public", ip);
}

static void check_vectors(void)
{
  static const char *refused[] = {
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.1",
    "100.127.255.254",
    "127.0.0.1",
    "127.0.0.2",
    "127.255.255.255",
    "169.254.169.254", /* cloud metadata */
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.88.99.1",
    "192.168.0.1",
    "192.168.255.255",
    "198.18.0.1",
    "198.19.255.255",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    /* IPv6 */
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:10.1.2.3",
    "::ffff:169.254.169.254",
    "::127.0.0.1", /* IPv4-compatible (deprecated) */
    "64:ff9b::10.0.0.1",
    "64:ff9b::127.0.0.1",
    "64:ff9b:1::1",
    "100::1",
    "2001::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2", /* Teredo */
    "2001:db8::1",
    "2001:10::1",
    "2002:7f00:1::1",
    "2002:a00:1::1",
    "3fff::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "febf::1",
    "fec0::1",
    "ff02::1",
    "ff05::1:3",
    "4000::1",
    "8000::1",
    "e000::1",
  };
  static const char *public_ips[] = {
    "1.1.1.1",
    "8.8.8.8",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.1",
    "169.253.255.255",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2a00:1450:4001:80b::200e",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:0808:0808::1",
    "2001:200::1",
  };
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); ++i) {
    check_refused(refused[i]);
  }
  for (size_t i = 0; i < sizeof(public_ips) / sizeof(public_ips[0]); ++i) {
    check_public(public_ips[i]);
  }
  CHECK_STR_EQ(lw_netguard_range_name("10.2.3.4"), "private");
  CHECK_STR_EQ(lw_netguard_range_name("127.0.0.1"), "loopback");
  CHECK_STR_EQ(lw_netguard_range_name("fe80::1"), "link-local (fe80::/10)");
  CHECK(lw_netguard_range_name("8.8.4.4") == NULL);
  LwError err;
  CHECK_INT_EQ(lw_netguard_check_ip(NULL, "example.org", 80, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_ip(NULL, "1.2.3", 80, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_ip(NULL, "10.0.0.1", 80, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "10.0.0.1") && strstr(err.message, "private"));
}

static void check_schemes(void)
{
  LwError err;
  CHECK_INT_EQ(lw_netguard_check_scheme("http://example.org/", &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_scheme("HTTPS://example.org/", &err), LW_OK);
  const char *bad[] = {"file:///etc/passwd", "ftp://example.org/x",
                       "gopher://x/",        "dict://x:11211/",
                       "httpx://x/",         "//example.org/x",
                       "example.org",        "",
                       "ldap://x/",          "http"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    LwStatus st = lw_netguard_check_scheme(bad[i], &err);
    lw_test_report(st == LW_ERR_REFUSED, __FILE__, __LINE__, "scheme refused", bad[i]);
  }
  CHECK_INT_EQ(lw_netguard_check_scheme(NULL, &err), LW_ERR_REFUSED);
}

static LwNetGuard *guard_of(const char *list)
{
  LwNetGuard *g = NULL;
  LwError err;
  LwStatus st = lw_netguard_new(list, &g, &err);
  lw_test_report(st == LW_OK, __FILE__, __LINE__, "allow list parses", list);
  return g;
}

static void check_allow_list(void)
{
  LwNetGuard *g = guard_of("127.0.0.1:8080, 10.0.0.0/8,::1 ,[::1]:9,[fd00::/8]:443,"
                           "192.168.1.7,,");
  CHECK_INT_EQ(lw_netguard_allow_count(g), 6);
  LwError err;
  CHECK_INT_EQ(lw_netguard_check_ip(g, "127.0.0.1", 8080, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "127.0.0.1", 8081, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "8081") != NULL);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "127.0.0.2", 8080, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "::ffff:127.0.0.1", 8080, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "10.200.3.4", 1, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "11.0.0.1", 1, &err), LW_OK); /* public */
  CHECK_INT_EQ(lw_netguard_check_ip(g, "172.16.0.1", 80, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "::1", 12345, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "fd00::5", 443, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "fd00::5", 80, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "fd01::5", 443, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "fe00::5", 443, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "192.168.1.7", 22, &err), LW_OK);
  CHECK_INT_EQ(lw_netguard_check_ip(g, "192.168.1.8", 22, &err), LW_ERR_REFUSED);
  lw_netguard_free(g);

  /* A sockaddr, as libcurl hands it over. */
  g = guard_of("127.0.0.1:8080");
  struct sockaddr_in in;
  memset(&in, 0, sizeof(in));
  in.sin_family = AF_INET;
  in.sin_port = htons(8080);
  inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
  CHECK_INT_EQ(lw_netguard_check_sockaddr(g, (struct sockaddr *)&in, &err), LW_OK);
  in.sin_port = htons(8081);
  CHECK_INT_EQ(lw_netguard_check_sockaddr(g, (struct sockaddr *)&in, &err), LW_ERR_REFUSED);
  struct sockaddr_in6 in6;
  memset(&in6, 0, sizeof(in6));
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(8080);
  inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
  CHECK_INT_EQ(lw_netguard_check_sockaddr(g, (struct sockaddr *)&in6, &err), LW_OK);
  inet_pton(AF_INET6, "::1", &in6.sin6_addr);
  CHECK_INT_EQ(lw_netguard_check_sockaddr(g, (struct sockaddr *)&in6, &err),
               LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_netguard_check_sockaddr(NULL, (struct sockaddr *)&in6, &err),
               LW_ERR_REFUSED);
  struct sockaddr un = {.sa_family = AF_UNIX};
  CHECK_INT_EQ(lw_netguard_check_sockaddr(g, &un, &err), LW_ERR_REFUSED);
  lw_netguard_free(g);

  g = guard_of(NULL);
  CHECK_INT_EQ(lw_netguard_allow_count(g), 0);
  lw_netguard_free(g);
  g = guard_of("  ");
  CHECK_INT_EQ(lw_netguard_allow_count(g), 0);
  lw_netguard_free(g);
  lw_netguard_free(NULL);

  const char *bad[] = {"localhost",    "127.0.0.1:",
                       "127.0.0.1:0",  "127.0.0.1:65536",
                       "10.0.0.0/33",  "10.0.0.0/",
                       "::1:8080x",    "[::1",
                       "[::1]8080",    "[::1]:x",
                       "fd00::/129",   "1.2.3.4.5",
                       "10.0.0.0/8/8", "127.0.0.1:80,example.org"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    LwNetGuard *none = NULL;
    LwStatus st = lw_netguard_new(bad[i], &none, &err);
    lw_test_report(st == LW_ERR_USAGE && none == NULL, __FILE__, __LINE__,
                   "bad allow list refused", bad[i]);
  }
  lw_netguard_new("10.0.0.0/8, bogus", &g, &err);
  CHECK(strstr(err.message, "bogus") != NULL);
}

int main(void)
{
  check_vectors();
  check_schemes();
  check_allow_list();
  return lw_test_finish();
}
