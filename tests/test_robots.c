/* robots.txt read the RFC 9309 way for the agent "lodwash" (net/net.h):
 * groups, longest match, allow on ties, wildcards and "$", Crawl-delay. The
 * same rules over HTTP, with the cache in Redis: tests/test_stage_download.c. */
#include "net/net.h"
#include "tests/support/check.h"

#include <string.h>

static void test_robots_rules(void)
{
  const char *text = "# comment\n"
                     "User-agent: *\n"
                     "Disallow: /private/\n"
                     "Allow: /private/open\n"
                     "Disallow: /*.xml$\n"
                     "Crawl-delay: 2.5\n"
                     "\n"
                     "User-agent: otherbot\n"
                     "Disallow: /\n";
  LwRobots *r = lw_robots_parse(text, strlen(text), "lodwash");
  CHECK(lw_robots_allowed(r, "/dump.nt"));
  CHECK(!lw_robots_allowed(r, "/private/dump.nt"));
  CHECK(lw_robots_allowed(r, "/private/open/dump.nt")); /* longer allow wins */
  CHECK(!lw_robots_allowed(r, "/a/b.xml"));
  CHECK(lw_robots_allowed(r, "/a/b.xml?x=1")); /* "$": the end of the path */
  CHECK(lw_robots_allowed(r, "/robots.txt"));
  CHECK_INT_EQ(lw_robots_crawl_delay_ms(r), 2500);
  lw_robots_free(r);
  /* A group naming lodwash replaces the "*" one. */
  const char *own = "User-agent: *\nDisallow: /\n\nUser-agent: LODwash/1.0\nUser-agent: x\n"
                    "Disallow: /tmp\n";
  r = lw_robots_parse(own, strlen(own), "lodwash");
  CHECK(lw_robots_allowed(r, "/dump.nt"));
  CHECK(!lw_robots_allowed(r, "/tmp/x"));
  CHECK_INT_EQ(lw_robots_crawl_delay_ms(r), -1);
  lw_robots_free(r);
  /* Empty Disallow allows everything. */
  r = lw_robots_parse("User-agent: *\nDisallow:\n", 24, "lodwash");
  CHECK(lw_robots_allowed(r, "/anything"));
  lw_robots_free(r);
}

int main(void)
{
  test_robots_rules();
  return lw_test_finish();
}
