/* Text from outside printed safely (issue 24, item 7): control characters
 * escaped and long text cut (lw_escape_text, lw_escape_quoted), URLs without
 * their user info (lw_url_redact, lw_redact_userinfo), and what lw_log and
 * lw_error_set make of a forged line or a password: compared with the line
 * of an undisturbed value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "queue/redis.h"
#include "tests/support/check.h"

static void test_escape(void)
{
  char out[64];
  CHECK_STR_EQ(lw_escape_text("2026-01-01", 10, 100, out, sizeof(out)), "2026-01-01");
  const char *forged = "2026-01-01\n2026-01-01T00:00:00Z error x=1\r\t\x1b[31m";
  CHECK_STR_EQ(lw_escape_text(forged, strlen(forged), 100, out, sizeof(out)),
               "2026-01-01\\n2026-01-01T00:00:00Z error x=1\\r\\t\\x1b[31m");
  CHECK_STR_EQ(lw_escape_text("abcdefgh", 8, 3, out, sizeof(out)), "abc...");
  char small[10];
  CHECK_STR_EQ(lw_escape_text("abcdefghijklmn", 14, 100, small, sizeof(small)),
               "abcdef...");
  CHECK_STR_EQ(lw_escape_quoted("say \"hi\" \\ now", 100, out, sizeof(out)),
               "say \\\"hi\\\" \\\\ now");
  CHECK_STR_EQ(lw_escape_text("a\"b", 3, 100, out, sizeof(out)), "a\"b");
}

static void test_redact(void)
{
  char out[128];
  CHECK_STR_EQ(lw_url_redact("redis://user:s3cret@host:6379/0", out, sizeof(out)),
               "redis://host:6379/0");
  CHECK_STR_EQ(lw_url_redact("https://a@b@host/p@q", out, sizeof(out)), "https://host/p@q");
  CHECK_STR_EQ(lw_url_redact("http://host/x", out, sizeof(out)), "http://host/x");
  char text[] = "store http://admin:pw@db:8890/sparql answered 500; see https://u:p@x/";
  lw_redact_userinfo(text);
  CHECK_STR_EQ(text, "store http://db:8890/sparql answered 500; see https://x/");
  char plain[] = "no url here: a@b, mailto:x@y";
  lw_redact_userinfo(plain);
  CHECK_STR_EQ(plain, "no url here: a@b, mailto:x@y");
  LwError err;
  lw_error_set(&err, LW_ERR_NET, "cannot reach %s", "http://bob:hunter2@h/");
  CHECK_STR_EQ(err.message, "cannot reach http://h/");
}

/* Every malformed Redis URL is refused with a message that never holds its
 * password. */
static void test_redis_url(void)
{
  const char *bad[] = {"redis://user:s3cret@host:notaport/0",
                       "redis://:s3cret@[::1/0",
                       "redis://u:s3cret@h/x",
                       "redis//:s3cret@host",
                       "http://:s3cret@host/0",
                       "redis://:pa/s3cret@host:1/0",
                       "unix://u:s3cret@relative.sock",
                       "unix://:s3cret@/tmp/r.sock?db=x"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); ++i) {
    LwRedisUrl u;
    LwError err;
    lw_error_clear(&err);
    CHECK_INT_EQ(lw_redis_url_parse(bad[i], &u, &err), LW_ERR_USAGE);
    CHECK(strstr(err.message, "bad Redis URL") != NULL);
    CHECK(strstr(err.message, "s3cret") == NULL);
  }
}

/* The lines lw_log writes for a value, read back from stderr. */
static char *log_lines(bool json, const char *value)
{
  char path[] = "/tmp/lw_test_escape_XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(2);
  fflush(stderr);
  dup2(fd, 2);
  lw_log_init("test", LW_LOG_INFO, json);
  char quoted[256];
  lw_info("provider=p msg=\"%s\" outcome=ok",
          lw_escape_quoted(value, 200, quoted, sizeof(quoted)));
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  static char text[4096];
  ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
  text[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
  return text;
}

static int count_lines(const char *s)
{
  int n = 0;
  for (; *s; ++s) {
    n += *s == '\n';
  }
  return n;
}

static void test_log(void)
{
  const char *forged = "2026\" level=error provider=victim x=\"\n2026-01-01T00:00:00.000Z "
                       "error test provider=victim outcome=error";
  CHECK_INT_EQ(count_lines(log_lines(false, "2026-01-01")), 1);
  char *plain = log_lines(false, forged);
  CHECK_INT_EQ(count_lines(plain), 1);
  CHECK(strstr(plain, "\\n2026-01-01T00:00:00.000Z") != NULL);
  char *json = log_lines(true, forged);
  CHECK_INT_EQ(count_lines(json), 1);
  CHECK(strstr(json, "\"provider\":\"p\"") != NULL);
  CHECK(strstr(json, "victim\"") == NULL ||
        strstr(json, "\"provider\":\"victim\"") == NULL);
  CHECK(strstr(json, "\"level\":\"info\"") != NULL);
  CHECK(strstr(json, "\"x\":") == NULL);
  CHECK(strstr(json, "\"outcome\":\"ok\"") != NULL);
  char *password = log_lines(false, "redis://u:s3cret@host/0");
  CHECK(strstr(password, "s3cret") == NULL);
  CHECK(strstr(password, "redis://host/0") != NULL);
  lw_log_init("test", LW_LOG_INFO, false);
}

int main(void)
{
  test_escape();
  test_redact();
  test_redis_url();
  test_log();
  return lw_test_finish();
}
