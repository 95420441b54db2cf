/* Downloading over real HTTP on loopback (tests/support/http_server.h):
 * hops recorded, errors classified, limits and address rules enforced,
 * conditional GET, resume and checksums, memory bounded. The allow list
 * exempts exactly the test server's 127.0.0.1:PORT. */
#include "net/net.h"
#include "tests/support/check.h"
#include "tests/support/http_server.h"

#include <curl/curl.h>
#include <dirent.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static LwTestServer *srv;
static LwNetGuard *guard;
static char *dir;

static const char *url_of(const char *path)
{
  static char buf[8][256];
  static int next;
  char *b = buf[next++ % 8];
  return lw_test_server_url(srv, path, b, 256);
}

static LwFetchOptions defaults(void)
{
  LwFetchOptions o;
  memset(&o, 0, sizeof(o));
  o.data_dir = dir;
  o.guard = guard;
  o.contact = "https://example.org/lodwash-test";
  o.connect_timeout_ms = 5000;
  o.timeout_ms = 60000;
  return o;
}

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  fclose(f);
  if (len) {
    *len = got;
  }
  return buf;
}

static int tmp_files(void)
{
  char path[1024];
  snprintf(path, sizeof(path), "%s/tmp", dir);
  DIR *d = opendir(path);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    n += e->d_name[0] != '.';
  }
  if (d) {
    closedir(d);
  }
  return n;
}

static bool exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

static const char *hop_str(const LwFetchResult *r, size_t i, const char *key)
{
  return json_string_value(json_object_get(json_array_get(r->http, i), key));
}

static long long hop_int(const LwFetchResult *r, size_t i, const char *key)
{
  return json_integer_value(json_object_get(json_array_get(r->http, i), key));
}

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* A 200 MB generated body: far larger than every buffer on the way. */
static void test_large_body_bounded_memory(void)
{
  const uint64_t size = 200ull * 1024 * 1024;
  lw_test_server_add(srv, "/large.nt",
                     &(LwTestResponse){.kind = LW_TEST_BODY_LINES, .size = size});
  long before = peak_rss_kb();
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  LwStatus st = lw_fetch(url_of("/large.nt"), &o, &r, &err);
  long after = peak_rss_kb();
  CHECK_INT_EQ(st, LW_OK);
  CHECK_INT_EQ(r.content.number_of_bytes, size);
  CHECK_INT_EQ(r.content.number_of_lines,
               size / LW_TEST_LINE_LEN + (size % LW_TEST_LINE_LEN != 0));
  CHECK_STR_EQ(lw_newline_name(r.content.newline), "LF");
  char md5[33];
  lw_test_lines_md5(size, md5);
  CHECK_STR_EQ(r.content.hash, md5);
  struct stat sb;
  CHECK(stat(r.path, &sb) == 0 && (uint64_t)sb.st_size == size);
  /* The peak grows by buffers only (1 MB file buffer, curl's 256 kB, the
   * server's 64 kB), never by the body. */
  fprintf(stderr, "peak RSS %ld kB before, %ld kB after a 200 MB download\n", before,
          after);
  CHECK(after - before < 40 * 1024);
  unlink(r.path);
  lw_fetch_result_clear(&r);
}

static void test_simple_200(void)
{
  lw_test_server_add(
    srv, "/data.ttl",
    &(LwTestResponse){.body = "<a> <b> <c> .\r\n<d> <e> \"\xc3\xa9\" .\r\n",
                      .content_type = "text/turtle",
                      .headers = "X-Test: one\nX-Test: two\n"});
  char dest[1024];
  snprintf(dest, sizeof(dest), "%s/raw/ab/cd/abcd.body", dir);
  LwFetchOptions o = defaults();
  o.dest_path = dest;
  o.accept = "text/turtle, */*;q=0.1";
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/data.ttl"), &o, &r, &err), LW_OK);
  CHECK_STR_EQ(r.path, dest);
  size_t len;
  char *body = slurp(dest, &len);
  CHECK_STR_EQ(body, "<a> <b> <c> .\r\n<d> <e> \"\xc3\xa9\" .\r\n");
  free(body);
  CHECK_INT_EQ(r.content.number_of_bytes, len);
  CHECK_INT_EQ(r.content.number_of_chars, len - 1);
  CHECK_INT_EQ(r.content.number_of_lines, 2);
  CHECK_STR_EQ(lw_newline_name(r.content.newline), "CRLF");
  CHECK_STR_EQ(r.content_type, "text/turtle");
  CHECK_INT_EQ(json_array_size(r.http), 1);
  CHECK_INT_EQ(hop_int(&r, 0, "status"), 200);
  CHECK_STR_EQ(hop_str(&r, 0, "uri"), url_of("/data.ttl"));
  json_t *hop = json_array_get(r.http, 0);
  CHECK_INT_EQ(
    json_integer_value(json_object_get(json_object_get(hop, "version"), "major")), 1);
  CHECK_INT_EQ(
    json_integer_value(json_object_get(json_object_get(hop, "version"), "minor")), 1);
  CHECK(json_is_real(json_object_get(hop, "walltime")));
  json_t *headers = json_object_get(hop, "headers");
  CHECK_STR_EQ(json_string_value(json_object_get(headers, "content-type")), "text/turtle");
  CHECK_STR_EQ(json_string_value(json_object_get(headers, "x-test")), "one, two");
  CHECK(r.begin > 1.6e9 && r.end >= r.begin);
  json_t *ts = lw_fetch_timestamp_json(&r);
  CHECK(json_real_value(json_object_get(ts, "end")) >=
        json_real_value(json_object_get(ts, "begin")));
  json_decref(ts);
  char ua[256];
  CHECK_STR_EQ(
    lw_test_server_request_header(srv, "/data.ttl", "User-Agent", ua, sizeof(ua)),
    "lodwash/" LODWASH_VERSION " (+https://example.org/lodwash-test)");
  CHECK_STR_EQ(lw_test_server_request_header(srv, "/data.ttl", "Accept", ua, sizeof(ua)),
               "text/turtle, */*;q=0.1");
  CHECK_INT_EQ(tmp_files(), 0);
  lw_fetch_result_clear(&r);
  lw_fetch_result_clear(&r); /* twice is fine */
  lw_fetch_result_clear(NULL);
}

static void test_redirect_chain(void)
{
  lw_test_server_add(srv, "/r1", &(LwTestResponse){.status = 301, .location = "/r2"});
  lw_test_server_add(srv, "/r2",
                     &(LwTestResponse){.status = 302, .location = url_of("/r3")});
  lw_test_server_add(srv, "/r3", &(LwTestResponse){.status = 307, .location = "final?x=1"});
  lw_test_server_add(srv, "/final", &(LwTestResponse){.body = "done\n"});
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/r1"), &o, &r, &err), LW_OK);
  CHECK_INT_EQ(json_array_size(r.http), 4);
  CHECK_INT_EQ(hop_int(&r, 0, "status"), 301);
  CHECK_INT_EQ(hop_int(&r, 1, "status"), 302);
  CHECK_INT_EQ(hop_int(&r, 2, "status"), 307);
  CHECK_INT_EQ(hop_int(&r, 3, "status"), 200);
  CHECK_STR_EQ(hop_str(&r, 0, "uri"), url_of("/r1"));
  CHECK_STR_EQ(hop_str(&r, 1, "uri"), url_of("/r2"));
  CHECK_STR_EQ(hop_str(&r, 2, "uri"), url_of("/r3"));
  CHECK_STR_EQ(hop_str(&r, 3, "uri"), url_of("/final?x=1"));
  CHECK_STR_EQ(json_string_value(json_object_get(
                 json_object_get(json_array_get(r.http, 0), "headers"), "location")),
               "/r2");
  CHECK_STR_EQ(r.final_url, url_of("/final?x=1"));
  CHECK_INT_EQ(r.content.number_of_bytes, 5);
  unlink(r.path);
  lw_fetch_result_clear(&r);

  /* At most max_redirects. */
  o.max_redirects = 2;
  CHECK_INT_EQ(lw_fetch(url_of("/r1"), &o, &r, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "too many redirects") != NULL);
  CHECK_INT_EQ(json_array_size(r.http), 3);
  lw_fetch_result_clear(&r);
  o.max_redirects = -1; /* none at all */
  CHECK_INT_EQ(lw_fetch(url_of("/r1"), &o, &r, &err), LW_ERR_LIMIT);
  lw_fetch_result_clear(&r);

  /* A loop ends at the default maximum (10). */
  lw_test_server_add(srv, "/loop", &(LwTestResponse){.location = "/loop"});
  o = defaults();
  CHECK_INT_EQ(lw_fetch(url_of("/loop"), &o, &r, &err), LW_ERR_LIMIT);
  CHECK_INT_EQ(json_array_size(r.http), 11);
  lw_fetch_result_clear(&r);

  /* A redirect with a big body: lodwash hangs up on the body and follows. */
  lw_test_server_add(srv, "/fat-redirect",
                     &(LwTestResponse){.location = "/final",
                                       .kind = LW_TEST_BODY_LINES,
                                       .size = 50 * 1024 * 1024});
  LwStatus fat = lw_fetch(url_of("/fat-redirect"), &o, &r, &err);
  if (fat != LW_OK) fprintf(stderr, "fat: %s\n", err.message);
  CHECK_INT_EQ(fat, LW_OK);
  CHECK_INT_EQ(json_array_size(r.http), 2);
  CHECK_INT_EQ(r.content.number_of_bytes, 5);
  CHECK(r.end - r.begin < 5.0);
  unlink(r.path);
  lw_fetch_result_clear(&r);

  /* A Location with raw 8-bit bytes still gives valid JSON hop records. */
  lw_test_server_add(srv, "/raw-location", &(LwTestResponse){.location = "/caf\xc3\xa9"});
  lw_test_server_add(srv, "/caf%C3%A9", &(LwTestResponse){.body = "accent\n"});
  LwStatus raw = lw_fetch(url_of("/raw-location"), &o, &r, &err);
  CHECK(raw == LW_OK || raw == LW_ERR_HTTP);
  CHECK_INT_EQ(json_array_size(r.http), 2);
  CHECK(hop_str(&r, 1, "uri") != NULL);
  fprintf(stderr, "raw Location followed to %s: %s\n", hop_str(&r, 1, "uri"),
          raw == LW_OK ? "ok" : err.message);
  if (raw == LW_OK) {
    unlink(r.path);
  }
  lw_fetch_result_clear(&r);

  lw_test_server_add(srv, "/noloc", &(LwTestResponse){.status = 302});
  CHECK_INT_EQ(lw_fetch(url_of("/noloc"), &o, &r, &err), LW_ERR_HTTP);
  CHECK(strstr(err.message, "Location") != NULL);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(tmp_files(), 0);
}

static void test_http_errors(void)
{
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/missing"), &o, &r, &err), LW_ERR_HTTP);
  CHECK(strstr(err.message, "HTTP 404 Not Found") != NULL);
  CHECK(!lw_status_retryable(err.status));
  CHECK_INT_EQ(r.status, 404);
  CHECK_INT_EQ(json_array_size(r.http), 1);
  lw_fetch_result_clear(&r);

  lw_test_server_add(srv, "/flaky", &(LwTestResponse){.status = 500, .body = "oops"});
  lw_test_server_add(srv, "/flaky", &(LwTestResponse){.body = "fine\n"});
  CHECK_INT_EQ(lw_fetch(url_of("/flaky"), &o, &r, &err), LW_ERR_NET);
  CHECK(lw_status_retryable(err.status));
  CHECK(strstr(err.message, "HTTP 500") != NULL);
  CHECK_INT_EQ(r.retry_after, -1);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(lw_fetch(url_of("/flaky"), &o, &r, &err), LW_OK); /* the retry */
  CHECK_INT_EQ(r.content.number_of_bytes, 5);
  unlink(r.path);
  lw_fetch_result_clear(&r);

  lw_test_server_add(srv, "/busy",
                     &(LwTestResponse){.status = 429, .headers = "Retry-After: 7\n"});
  CHECK_INT_EQ(lw_fetch(url_of("/busy"), &o, &r, &err), LW_ERR_NET);
  CHECK_INT_EQ(r.retry_after, 7);
  CHECK(strstr(err.message, "429") && strstr(err.message, "Retry-After"));
  lw_fetch_result_clear(&r);

  /* Retry-After as an HTTP date, 60 s ahead. */
  char hdr[128];
  time_t later = time(NULL) + 60;
  struct tm tm;
  gmtime_r(&later, &tm);
  strftime(hdr, sizeof(hdr), "Retry-After: %a, %d %b %Y %H:%M:%S GMT\n", &tm);
  lw_test_server_add(srv, "/busy2", &(LwTestResponse){.status = 503, .headers = hdr});
  CHECK_INT_EQ(lw_fetch(url_of("/busy2"), &o, &r, &err), LW_ERR_NET);
  CHECK(r.retry_after >= 55 && r.retry_after <= 60);
  lw_fetch_result_clear(&r);

  lw_test_server_add(srv, "/gone", &(LwTestResponse){.status = 410});
  CHECK_INT_EQ(lw_fetch(url_of("/gone"), &o, &r, &err), LW_ERR_HTTP);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(tmp_files(), 0);
}

static void test_timeouts(void)
{
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  lw_test_server_add(srv, "/sleepy", &(LwTestResponse){.delay_ms = 3000, .body = "late"});
  o.timeout_ms = 400;
  CHECK_INT_EQ(lw_fetch(url_of("/sleepy"), &o, &r, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "timeout") != NULL);
  CHECK(r.end - r.begin < 2.5);
  lw_fetch_result_clear(&r);

  /* A slow drip: 10 bytes every 300 ms is under 1000 B/s for a second. */
  lw_test_server_add(
    srv, "/drip",
    &(LwTestResponse){
      .kind = LW_TEST_BODY_LINES, .size = 100000, .drip_bytes = 10, .drip_ms = 300});
  o = defaults();
  o.low_speed_limit = 1000;
  o.low_speed_time = 1;
  CHECK_INT_EQ(lw_fetch(url_of("/drip"), &o, &r, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "timeout") != NULL);
  CHECK(r.end - r.begin < 4.0);
  lw_fetch_result_clear(&r);

  /* A drip that is slow but finishes in time is fine. */
  lw_test_server_add(
    srv, "/drip2",
    &(LwTestResponse){
      .kind = LW_TEST_BODY_LINES, .size = 720, .drip_bytes = 100, .drip_ms = 20});
  o = defaults();
  CHECK_INT_EQ(lw_fetch(url_of("/drip2"), &o, &r, &err), LW_OK);
  CHECK_INT_EQ(r.content.number_of_lines, 10);
  unlink(r.path);
  lw_fetch_result_clear(&r);
}

static void test_lying_content_length(void)
{
  lw_test_server_add(
    srv, "/liar",
    &(LwTestResponse){.kind = LW_TEST_BODY_LINES, .size = 100000, .truncate_after = 5000});
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/liar"), &o, &r, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "after HTTP 200") != NULL);
  fprintf(stderr, "lying Content-Length: %s\n", err.message);
  CHECK(!r.partial_kept);
  CHECK_INT_EQ(tmp_files(), 0);
  lw_fetch_result_clear(&r);
}

static void test_refused(void)
{
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  char other[256];
  snprintf(other, sizeof(other), "http://127.0.0.2:%u/x", lw_test_server_port(srv));
  lw_test_server_add(srv, "/to-127.0.0.2", &(LwTestResponse){.location = other});
  CHECK_INT_EQ(lw_fetch(url_of("/to-127.0.0.2"), &o, &r, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "127.0.0.2") && strstr(err.message, "loopback"));
  CHECK_INT_EQ(json_array_size(r.http), 1); /* the redirect, nothing after */
  lw_fetch_result_clear(&r);

  snprintf(other, sizeof(other), "http://127.0.0.1:%u/x", lw_test_server_port(srv) + 1);
  lw_test_server_add(srv, "/to-other-port", &(LwTestResponse){.location = other});
  CHECK_INT_EQ(lw_fetch(url_of("/to-other-port"), &o, &r, &err), LW_ERR_REFUSED);
  lw_fetch_result_clear(&r);

  lw_test_server_add(srv, "/to-file", &(LwTestResponse){.location = "file:///etc/passwd"});
  CHECK_INT_EQ(lw_fetch(url_of("/to-file"), &o, &r, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "only http and https") != NULL);
  lw_fetch_result_clear(&r);

  CHECK_INT_EQ(lw_fetch("ftp://127.0.0.1/x", &o, &r, &err), LW_ERR_REFUSED);
  lw_fetch_result_clear(&r);

  /* Without the allow list, the test server itself is loopback: refused,
   * and it never sees a request. */
  int hits = lw_test_server_hits(srv, "/data.ttl");
  o.guard = NULL;
  CHECK_INT_EQ(lw_fetch(url_of("/data.ttl"), &o, &r, &err), LW_ERR_REFUSED);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/data.ttl"), hits);
  lw_fetch_result_clear(&r);

  /* What a name resolves to is what counts (DNS rebinding): a host pinned
   * to 127.0.0.2 is refused, one pinned to the allowed address passes. */
  o = defaults();
  char pin1[128], pin2[128], url[256];
  snprintf(pin1, sizeof(pin1), "rebind.test:%u:127.0.0.2", lw_test_server_port(srv));
  snprintf(pin2, sizeof(pin2), "fine.test:%u:127.0.0.1", lw_test_server_port(srv));
  const char *pins[] = {pin1, pin2, NULL};
  o.resolve = pins;
  snprintf(url, sizeof(url), "http://rebind.test:%u/data.ttl", lw_test_server_port(srv));
  CHECK_INT_EQ(lw_fetch(url, &o, &r, &err), LW_ERR_REFUSED);
  CHECK(strstr(err.message, "127.0.0.2") != NULL);
  lw_fetch_result_clear(&r);
  snprintf(url, sizeof(url), "http://fine.test:%u/data.ttl", lw_test_server_port(srv));
  CHECK_INT_EQ(lw_fetch(url, &o, &r, &err), LW_OK);
  unlink(r.path);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(tmp_files(), 0);
}

static void test_network_errors(void)
{
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch("http://nonexistent.invalid/x", &o, &r, &err), LW_ERR_NET);
  CHECK(strncmp(err.message, "DNS:", 4) == 0);
  lw_fetch_result_clear(&r);

  /* A closed port on an allowed address: connect fails, retryable. */
  LwNetGuard *any = NULL;
  lw_netguard_new("127.0.0.1", &any, &err);
  o.guard = any;
  char url[128];
  snprintf(url, sizeof(url), "http://127.0.0.1:%u/x", lw_test_server_port(srv) + 1);
  CHECK_INT_EQ(lw_fetch(url, &o, &r, &err), LW_ERR_NET);
  CHECK(strncmp(err.message, "connect:", 8) == 0);
  lw_fetch_result_clear(&r);
  lw_netguard_free(any);

  /* TLS spoken to a plain HTTP server: a TLS error, retryable. */
  o = defaults();
  snprintf(url, sizeof(url), "https://127.0.0.1:%u/data.ttl", lw_test_server_port(srv));
  CHECK_INT_EQ(lw_fetch(url, &o, &r, &err), LW_ERR_NET);
  CHECK(strncmp(err.message, "TLS:", 4) == 0);
  fprintf(stderr, "https to plain http: %s\n", err.message);
  lw_fetch_result_clear(&r);

  CHECK_INT_EQ(lw_fetch("http://[::1/x", &o, &r, &err), LW_ERR_USAGE);
  lw_fetch_result_clear(&r);
}

static void test_conditional(void)
{
  lw_test_server_add(srv, "/cond",
                     &(LwTestResponse){.body = "v1\n",
                                       .etag = "\"v1\"",
                                       .last_modified = "Sat, 21 Nov 2026 10:00:00 GMT"});
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/cond"), &o, &r, &err), LW_OK);
  CHECK_STR_EQ(r.etag, "\"v1\"");
  CHECK_STR_EQ(r.last_modified, "Sat, 21 Nov 2026 10:00:00 GMT");
  char etag[256], lm[64], hash[33];
  snprintf(etag, sizeof(etag), "%s", r.etag);
  snprintf(lm, sizeof(lm), "%s", r.last_modified);
  snprintf(hash, sizeof(hash), "%s", r.content.hash);
  unlink(r.path);
  lw_fetch_result_clear(&r);

  /* The revisit: a 304, nothing stored. */
  o.etag = etag;
  CHECK_INT_EQ(lw_fetch(url_of("/cond"), &o, &r, &err), LW_NOTHING);
  CHECK(r.not_modified);
  CHECK_INT_EQ(r.status, 304);
  CHECK_INT_EQ(hop_int(&r, 0, "status"), 304);
  char seen[64];
  CHECK_STR_EQ(
    lw_test_server_request_header(srv, "/cond", "If-None-Match", seen, sizeof(seen)),
    "\"v1\"");
  lw_fetch_result_clear(&r);
  o.etag = NULL;
  o.last_modified = lm;
  CHECK_INT_EQ(lw_fetch(url_of("/cond"), &o, &r, &err), LW_NOTHING);
  CHECK(r.not_modified);
  lw_fetch_result_clear(&r);

  /* No validators, but the same bytes as last time: unchanged as well. */
  char dest[1024];
  snprintf(dest, sizeof(dest), "%s/raw/sa/me/same", dir);
  o = defaults();
  o.previous_hash = hash;
  o.dest_path = dest;
  CHECK_INT_EQ(lw_fetch(url_of("/cond"), &o, &r, &err), LW_NOTHING);
  CHECK(r.same_hash && !r.not_modified);
  CHECK_STR_EQ(r.content.hash, hash);
  CHECK(!exists(dest));
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(tmp_files(), 0);
}

static void test_resume(void)
{
  const uint64_t size = 3 * 1024 * 1024;
  LwTestResponse first = {.kind = LW_TEST_BODY_LINES,
                          .size = size,
                          .ranges = true,
                          .etag = "\"r1\"",
                          .truncate_after = 1000000};
  LwTestResponse rest = {
    .kind = LW_TEST_BODY_LINES, .size = size, .ranges = true, .etag = "\"r1\""};
  lw_test_server_add(srv, "/resume", &first);
  lw_test_server_add(srv, "/resume", &rest);
  char partial[1024], dest[1024], meta[1100];
  snprintf(partial, sizeof(partial), "%s/partial/re/su/resume.part", dir);
  snprintf(meta, sizeof(meta), "%s.meta", partial);
  snprintf(dest, sizeof(dest), "%s/raw/re/su/resume", dir);
  LwFetchOptions o = defaults();
  o.partial_path = partial;
  o.dest_path = dest;
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_ERR_NET);
  CHECK(r.partial_kept);
  struct stat st;
  CHECK(stat(partial, &st) == 0 && st.st_size > 0 && st.st_size <= 1000000);
  CHECK(exists(meta));
  lw_fetch_result_clear(&r);

  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_OK);
  CHECK(r.resumed);
  CHECK_INT_EQ(r.resumed_from, st.st_size);
  CHECK_INT_EQ(r.status, 206);
  char md5[33];
  lw_test_lines_md5(size, md5);
  CHECK_STR_EQ(r.content.hash, md5);
  CHECK_INT_EQ(r.content.number_of_bytes, size);
  char seen[128], want[128];
  snprintf(want, sizeof(want), "bytes=%lld-", (long long)st.st_size);
  CHECK_STR_EQ(lw_test_server_request_header(srv, "/resume", "Range", seen, sizeof(seen)),
               want);
  CHECK_STR_EQ(
    lw_test_server_request_header(srv, "/resume", "If-Range", seen, sizeof(seen)),
    "\"r1\"");
  CHECK(!exists(partial) && !exists(meta));
  CHECK(stat(dest, &st) == 0 && (uint64_t)st.st_size == size);
  lw_fetch_result_clear(&r);

  /* The resource changed meanwhile: If-Range fails, a full 200 comes, the
   * body starts again from byte 0 and is still right. */
  lw_test_server_clear(srv, "/resume");
  first.etag = rest.etag = "\"r2\"";
  lw_test_server_add(srv, "/resume", &first);
  rest.etag = "\"r3\"";
  lw_test_server_add(srv, "/resume", &rest);
  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_ERR_NET);
  CHECK(r.partial_kept);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_OK);
  CHECK(!r.resumed);
  CHECK_INT_EQ(r.status, 200);
  CHECK_STR_EQ(r.content.hash, md5);
  lw_fetch_result_clear(&r);

  /* The resource shrank below the partial (a 416): the partial is dropped
   * and the next attempt starts from byte 0. */
  lw_test_server_clear(srv, "/resume");
  LwTestResponse small_first = {.kind = LW_TEST_BODY_LINES,
                                .size = size,
                                .ranges = true,
                                .etag = "\"s\"",
                                .truncate_after = 100000};
  LwTestResponse tiny = {
    .kind = LW_TEST_BODY_LINES, .size = 1000, .ranges = true, .etag = "\"s\""};
  lw_test_server_add(srv, "/resume", &small_first);
  lw_test_server_add(srv, "/resume", &tiny);
  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_ERR_NET);
  CHECK(r.partial_kept);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "416") != NULL);
  CHECK(!r.partial_kept && !exists(partial) && !exists(meta));
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(lw_fetch(url_of("/resume"), &o, &r, &err), LW_OK);
  CHECK_INT_EQ(r.content.number_of_bytes, 1000);
  lw_fetch_result_clear(&r);

  /* No Accept-Ranges: nothing is kept. */
  lw_test_server_add(
    srv, "/noranges",
    &(LwTestResponse){
      .kind = LW_TEST_BODY_LINES, .size = size, .etag = "\"n\"", .truncate_after = 1000});
  CHECK_INT_EQ(lw_fetch(url_of("/noranges"), &o, &r, &err), LW_ERR_NET);
  CHECK(!r.partial_kept && !exists(partial) && !exists(meta));
  lw_fetch_result_clear(&r);
}

typedef struct {
  int calls;
  uint64_t last;
  uint64_t total;
  uint64_t stop_after;
} Progress;

static bool on_progress(void *user, uint64_t bytes, uint64_t total)
{
  Progress *p = user;
  p->calls++;
  p->last = bytes;
  p->total = total;
  return !p->stop_after || bytes < p->stop_after;
}

/* The stage reports progress and stops on SIGTERM through this callback;
 * a stopped download keeps its partial for the next attempt. */
static void test_progress_and_stop(void)
{
  const uint64_t size = 4 * 1024 * 1024;
  lw_test_server_add(srv, "/progress",
                     &(LwTestResponse){.kind = LW_TEST_BODY_LINES,
                                       .size = size,
                                       .ranges = true,
                                       .etag = "\"p\"",
                                       .drip_bytes = 65536,
                                       .drip_ms = 5});
  char partial[1024];
  snprintf(partial, sizeof(partial), "%s/partial/progress.part", dir);
  LwFetchOptions o = defaults();
  Progress p = {0, 0, 0, 0};
  o.progress = on_progress;
  o.progress_user = &p;
  o.partial_path = partial;
  LwFetchResult r;
  LwError err;
  CHECK_INT_EQ(lw_fetch(url_of("/progress"), &o, &r, &err), LW_OK);
  CHECK(p.calls > 1);
  CHECK_INT_EQ(p.last, size);
  CHECK_INT_EQ(p.total, size);
  unlink(r.path);
  lw_fetch_result_clear(&r);

  p = (Progress){0, 0, 0, 1024 * 1024};
  CHECK_INT_EQ(lw_fetch(url_of("/progress"), &o, &r, &err), LW_ERR_NET);
  CHECK(strstr(err.message, "stopped") != NULL);
  CHECK(r.partial_kept);
  lw_fetch_result_clear(&r);
  p.stop_after = 0;
  CHECK_INT_EQ(lw_fetch(url_of("/progress"), &o, &r, &err), LW_OK);
  CHECK(r.resumed && r.resumed_from >= 1024 * 1024);
  char md5[33];
  lw_test_lines_md5(size, md5);
  CHECK_STR_EQ(r.content.hash, md5);
  unlink(r.path);
  lw_fetch_result_clear(&r);
}

static void sha256_hex(const char *data, char out[65])
{
  unsigned char d[32];
  unsigned len;
  EVP_Digest(data, strlen(data), d, &len, EVP_sha256(), NULL);
  for (unsigned i = 0; i < len; ++i) {
    sprintf(out + 2 * i, "%02x", d[i]);
  }
}

static void test_checksums(void)
{
  const char *body = "<s> <p> <o> .\n";
  lw_test_server_add(srv, "/sum", &(LwTestResponse){.body = body});
  char hex[65], declared[128];
  sha256_hex(body, hex);
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  snprintf(declared, sizeof(declared), "sha256:%s", hex);
  o.checksum = declared;
  CHECK_INT_EQ(lw_fetch(url_of("/sum"), &o, &r, &err), LW_OK);
  CHECK_STR_EQ(r.checksums_verified, "declared sha256");
  unlink(r.path);
  lw_fetch_result_clear(&r);

  snprintf(declared, sizeof(declared), "checksumAlgorithm_sha256:%s", hex);
  CHECK_INT_EQ(lw_fetch(url_of("/sum"), &o, &r, &err), LW_OK);
  unlink(r.path);
  lw_fetch_result_clear(&r);

  /* A mismatch fails, says both values and keeps no file. */
  char dest[1024];
  snprintf(dest, sizeof(dest), "%s/raw/su/ms/sum", dir);
  o.dest_path = dest;
  o.checksum = "md5:00000000000000000000000000000000";
  o.checksum_source = "VoID spdx:checksum";
  CHECK_INT_EQ(lw_fetch(url_of("/sum"), &o, &r, &err), LW_ERR_CHECKSUM);
  CHECK(strstr(err.message, "checksum mismatch: VoID spdx:checksum md5 is "
                            "00000000000000000000000000000000") != NULL);
  CHECK(strstr(err.message, r.content.hash) != NULL);
  CHECK(!lw_status_retryable(err.status));
  CHECK(!exists(dest));
  lw_fetch_result_clear(&r);
  o.checksum = "crc99:abcd";
  CHECK_INT_EQ(lw_fetch(url_of("/sum"), &o, &r, &err), LW_ERR_USAGE);
  lw_fetch_result_clear(&r);

  /* Declared by HTTP: Content-MD5 (base64), Digest and Repr-Digest. */
  o = defaults();
  lw_test_server_add(
    srv, "/md5-bad",
    &(LwTestResponse){.body = body, .headers = "Content-MD5: AAAAAAAAAAAAAAAAAAAAAA==\n"});
  CHECK_INT_EQ(lw_fetch(url_of("/md5-bad"), &o, &r, &err), LW_ERR_CHECKSUM);
  CHECK(strstr(err.message, "Content-MD5") != NULL);
  lw_fetch_result_clear(&r);

  unsigned char d[32];
  unsigned dlen;
  EVP_Digest(body, strlen(body), d, &dlen, EVP_sha256(), NULL);
  char b64[64], hdr[256];
  EVP_EncodeBlock((unsigned char *)b64, d, (int)dlen);
  snprintf(hdr, sizeof(hdr),
           "Digest: UNIXsum=30637, SHA-256=%s\nRepr-Digest: sha-256=:%s:\n", b64, b64);
  lw_test_server_add(srv, "/digest", &(LwTestResponse){.body = body, .headers = hdr});
  CHECK_INT_EQ(lw_fetch(url_of("/digest"), &o, &r, &err), LW_OK);
  CHECK_STR_EQ(r.checksums_verified, "Digest header sha256, Repr-Digest header sha256");
  unlink(r.path);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(tmp_files(), 0);
}

static void test_encodings(void)
{
  const char *text = "<s> <p> \"gzip me, gzip me, gzip me\" .\n<s> <p> <o> .\n";
  LwFetchOptions o = defaults();
  LwFetchResult r;
  LwError err;
  const char *codings[] = {"gzip", "deflate"};
  for (int i = 0; i < 2; ++i) {
    char path[32];
    snprintf(path, sizeof(path), "/enc-%s", codings[i]);
    lw_test_server_add(srv, path, &(LwTestResponse){.body = text, .encoding = codings[i]});
    CHECK_INT_EQ(lw_fetch(url_of(path), &o, &r, &err), LW_OK);
    CHECK_STR_EQ(r.content_encoding, codings[i]);
    char *got = slurp(r.path, NULL);
    CHECK_STR_EQ(got, text);
    free(got);
    CHECK_INT_EQ(r.content.number_of_lines, 2);
    char seen[128];
    CHECK(lw_test_server_request_header(srv, path, "Accept-Encoding", seen, sizeof(seen)) &&
          strstr(seen, "gzip"));
    unlink(r.path);
    lw_fetch_result_clear(&r);
  }

  /* zstd, made by the zstd program when it is there. */
  char zbody[4096];
  size_t zlen = 0;
  FILE *z = popen("printf '<s> <p> \"zstd\" .\\n' | zstd -q -c 2>/dev/null", "r");
  if (z) {
    zlen = fread(zbody, 1, sizeof(zbody), z);
    if (pclose(z) != 0) {
      zlen = 0;
    }
  }
  if (zlen > 0) {
    lw_test_server_add(srv, "/enc-zstd",
                       &(LwTestResponse){.body = zbody,
                                         .body_len = zlen,
                                         .headers = "Content-Encoding: zstd\n"});
    CHECK_INT_EQ(lw_fetch(url_of("/enc-zstd"), &o, &r, &err), LW_OK);
    char *got = slurp(r.path, NULL);
    CHECK_STR_EQ(got, "<s> <p> \"zstd\" .\n");
    free(got);
    unlink(r.path);
    lw_fetch_result_clear(&r);
  } else {
    fprintf(stderr, "no zstd program: Content-Encoding zstd not tested\n");
  }

  /* dump.nt.gz labelled "Content-Encoding: gzip" (a common server
   * misconfiguration): decoded when nothing is declared, kept as published
   * when VoID declares the checksum of the .gz file. */
  char gz[4096];
  size_t gzlen = 0;
  FILE *g = popen("printf '<s> <p> \"gz\" .\\n' | gzip -c -n", "r");
  if (g) {
    gzlen = fread(gz, 1, sizeof(gz), g);
    pclose(g);
  }
  CHECK(gzlen > 10);
  lw_test_server_add(srv, "/dump.nt.gz",
                     &(LwTestResponse){.body = gz,
                                       .body_len = gzlen,
                                       .headers = "Content-Encoding: gzip\n"});
  CHECK_INT_EQ(lw_fetch(url_of("/dump.nt.gz"), &o, &r, &err), LW_OK);
  char *plain = slurp(r.path, NULL);
  CHECK_STR_EQ(plain, "<s> <p> \"gz\" .\n");
  free(plain);
  unlink(r.path);
  lw_fetch_result_clear(&r);
  char gzmd5[33], declared[64];
  lw_md5_hex(gz, gzlen, gzmd5);
  snprintf(declared, sizeof(declared), "md5:%s", gzmd5);
  o.checksum = declared;
  CHECK_INT_EQ(lw_fetch(url_of("/dump.nt.gz"), &o, &r, &err), LW_OK);
  CHECK_STR_EQ(r.content.hash, gzmd5);
  CHECK_INT_EQ(r.content.number_of_bytes, gzlen);
  char seen_ae[64];
  CHECK(lw_test_server_request_header(srv, "/dump.nt.gz", "Accept-Encoding", seen_ae,
                                      sizeof(seen_ae)) == NULL);
  unlink(r.path);
  lw_fetch_result_clear(&r);
  o.checksum = NULL;

  /* A gzip bomb: 1 GB of zeros in about a megabyte, stopped at 10 MB of
   * decoded bytes. */
  lw_test_server_add(srv, "/bomb",
                     &(LwTestResponse){.kind = LW_TEST_BODY_ZEROS,
                                       .size = 1024ull * 1024 * 1024,
                                       .encoding = "gzip"});
  o.max_bytes = 10 * 1024 * 1024;
  CHECK_INT_EQ(lw_fetch(url_of("/bomb"), &o, &r, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "size limit") && strstr(err.message, "gzip"));
  CHECK(r.end - r.begin < 10.0);
  lw_fetch_result_clear(&r);

  /* Over the limit by its Content-Length: refused before the body. */
  lw_test_server_add(
    srv, "/big-cl",
    &(LwTestResponse){.kind = LW_TEST_BODY_LINES, .size = 50 * 1024 * 1024});
  CHECK_INT_EQ(lw_fetch(url_of("/big-cl"), &o, &r, &err), LW_ERR_LIMIT);
  CHECK(strstr(err.message, "Content-Length") != NULL);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(tmp_files(), 0);
}

static void test_small(void)
{
  lw_test_server_add(
    srv, "/void.ttl",
    &(LwTestResponse){.body = "@prefix void: <http://rdfs.org/ns/void#> .\n",
                      .encoding = "gzip"});
  LwFetchOptions o = defaults();
  o.data_dir = NULL; /* not needed in memory */
  LwFetchResult r;
  LwError err;
  char *body;
  size_t len;
  CHECK_INT_EQ(lw_fetch_small(url_of("/void.ttl"), &o, 4096, &body, &len, &r, &err), LW_OK);
  CHECK_STR_EQ(body, "@prefix void: <http://rdfs.org/ns/void#> .\n");
  CHECK_INT_EQ(len, strlen(body));
  CHECK_INT_EQ(r.content.number_of_lines, 1);
  free(body);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(lw_fetch_small(url_of("/void.ttl"), &o, 10, &body, &len, &r, &err),
               LW_ERR_LIMIT);
  CHECK(body == NULL);
  lw_fetch_result_clear(&r);
  CHECK_INT_EQ(lw_fetch_small(url_of("/missing"), &o, 4096, &body, &len, &r, &err),
               LW_ERR_HTTP);
  lw_fetch_result_clear(&r);
  o.guard = NULL;
  CHECK_INT_EQ(lw_fetch_small(url_of("/void.ttl"), &o, 4096, &body, &len, &r, &err),
               LW_ERR_REFUSED);
  lw_fetch_result_clear(&r);
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

/* The test server itself, for the other tests that use it: uploads are
 * read and kept, methods recorded, unknown paths 404. */
static void test_server_uploads(void)
{
  lw_test_server_add(srv, "/upload", &(LwTestResponse){.status = 201, .body = "made\n"});
  CURL *c = curl_easy_init();
  char url[256];
  curl_easy_setopt(c, CURLOPT_URL, lw_test_server_url(srv, "/upload", url, sizeof(url)));
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, "INSERT DATA { <a> <b> <c> }");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
  CHECK_INT_EQ(curl_easy_perform(c), CURLE_OK);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  CHECK_INT_EQ(code, 201);
  curl_easy_cleanup(c);
  char method[16];
  CHECK_STR_EQ(lw_test_server_request_method(srv, "/upload", method, sizeof(method)),
               "POST");
  size_t len = 0;
  char *body = lw_test_server_request_body(srv, "/upload", &len);
  CHECK_STR_EQ(body, "INSERT DATA { <a> <b> <c> }");
  CHECK_INT_EQ(len, strlen("INSERT DATA { <a> <b> <c> }"));
  free(body);
  CHECK(lw_test_server_request_body(srv, "/never", NULL) == NULL);
  CHECK_INT_EQ(lw_test_server_hits(srv, "/upload"), 1);
}

/* A before_hop that says "not yet" twice before it lets the hop go. */
static LwStatus later_twice(void *user, const char *url, LwError *err)
{
  (void)url;
  int *calls = user;
  if (++*calls <= 2) {
    lw_error_clear(err);
    err->retry_after_ms = 50;
    return LW_NOTHING;
  }
  return LW_OK;
}

/* Many fetches at once (LwFetchMulti), each under its own rules, with the
 * outcome lw_fetch gives: a slow answer holds only its own transfer. */
static void test_multi(void)
{
  lw_test_server_add(srv, "/m-slow", &(LwTestResponse){.delay_ms = 1500, .body = "slow\n"});
  lw_test_server_add(srv, "/m-r1", &(LwTestResponse){.status = 301, .location = "/m-final"});
  lw_test_server_add(srv, "/m-final", &(LwTestResponse){.body = "final\n"});
  lw_test_server_add(srv, "/m-cond", &(LwTestResponse){.body = "v1\n", .etag = "\"m1\""});
  lw_test_server_add(srv, "/m-big", &(LwTestResponse){.body = "0123456789012345678901234567"});
  lw_test_server_add(srv, "/m-sum", &(LwTestResponse){.body = "<s> <p> <o> .\n"});
  char other[256];
  snprintf(other, sizeof(other), "http://127.0.0.2:%u/x", lw_test_server_port(srv));
  lw_test_server_add(srv, "/m-refused", &(LwTestResponse){.location = other});
  enum { SLOW, REDIRECT, COND, BIG, SUM, REFUSED, LATER, N };
  const char *paths[N] = {"/m-slow", "/m-r1",      "/m-cond", "/m-big",
                          "/m-sum",  "/m-refused", "/m-final"};
  LwFetchOptions o[N];
  LwFetchResult r[N];
  LwError err[N];
  int calls = 0;
  LwFetchMulti *m = lw_fetch_multi_new();
  CHECK(m != NULL);
  for (int i = 0; i < N; ++i) {
    o[i] = defaults();
  }
  o[COND].etag = "\"m1\"";
  o[BIG].max_bytes = 10;
  o[SUM].checksum = "md5:00000000000000000000000000000000";
  o[LATER].before_hop = later_twice;
  o[LATER].before_hop_user = &calls;
  for (int i = 0; i < N; ++i) {
    CHECK_INT_EQ(lw_fetch_multi_add(m, url_of(paths[i]), &o[i], &r[i], &err[i], &r[i]),
                 LW_OK);
  }
  CHECK_INT_EQ(lw_fetch_multi_count(m), N);
  LwStatus st[N];
  int order[N], ended = 0;
  LwError run_err;
  while (lw_fetch_multi_count(m) > 0) {
    CHECK_INT_EQ(lw_fetch_multi_run(m, 100, &run_err), LW_OK);
    LwFetchResult *done;
    LwStatus s;
    while ((done = lw_fetch_multi_done(m, &s)) != NULL) {
      int i = (int)(done - r);
      st[i] = s;
      order[ended++] = i;
    }
  }
  lw_fetch_multi_free(m);
  CHECK_INT_EQ(ended, N);
  CHECK_INT_EQ(order[N - 1], SLOW); /* the others did not wait for it */
  CHECK_INT_EQ(st[SLOW], LW_OK);
  CHECK_INT_EQ(st[REDIRECT], LW_OK);
  CHECK_INT_EQ(json_array_size(r[REDIRECT].http), 2);
  CHECK_INT_EQ(st[COND], LW_NOTHING);
  CHECK(r[COND].not_modified);
  CHECK_INT_EQ(st[BIG], LW_ERR_LIMIT);
  CHECK_INT_EQ(st[SUM], LW_ERR_CHECKSUM);
  CHECK(strstr(err[SUM].message, "checksum mismatch") != NULL);
  CHECK_INT_EQ(st[REFUSED], LW_ERR_REFUSED);
  CHECK_INT_EQ(json_array_size(r[REFUSED].http), 1);
  CHECK_INT_EQ(st[LATER], LW_OK);
  CHECK_INT_EQ(calls, 3);
  size_t len = 0;
  char *body = slurp(r[SLOW].path, &len);
  CHECK_STR_EQ(body, "slow\n");
  free(body);
  for (int i = 0; i < N; ++i) {
    if (st[i] == LW_OK) {
      unlink(r[i].path);
    }
    lw_fetch_result_clear(&r[i]);
  }
  CHECK_INT_EQ(tmp_files(), 0);
}

int main(void)
{
  srv = lw_test_server_start();
  if (!srv) {
    lw_test_skip("libmicrohttpd cannot start a server");
  }
  dir = lw_test_tmpdir();
  LwError err;
  CHECK_INT_EQ(lw_netguard_new(lw_test_server_allow(srv), &guard, &err), LW_OK);
  test_large_body_bounded_memory(); /* first: nothing else has raised the peak */
  test_simple_200();
  test_redirect_chain();
  test_http_errors();
  test_timeouts();
  test_lying_content_length();
  test_refused();
  test_network_errors();
  test_conditional();
  test_resume();
  test_progress_and_stop();
  test_checksums();
  test_encodings();
  test_small();
  test_server_uploads();
  test_multi();
  lw_netguard_free(guard);
  lw_test_server_stop(srv);
  lw_test_rmtree(dir);
  free(dir);
  return lw_test_finish();
}
