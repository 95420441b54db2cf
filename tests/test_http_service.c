/* The operators' HTTP service answers GETs and POSTs (with their form
 * fields) from its page callback over real HTTP on loopback, sends files and
 * redirects, refuses other methods and says 404 for unknown paths. */
#include "net/net.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tests/support/check.h"

static char file_path[256];

static void page(void *handle, const LwHttpRequest *req, LwHttpPage *p)
{
  int *calls = handle;
  const char *path = req->path;
  ++*calls;
  if (!strcmp(req->method, "POST") && !strcmp(path, "/echo")) {
    const char *a = lw_http_form_get(req, "a");
    const char *b = lw_http_form_get(req, "b");
    char text[256];
    snprintf(text, sizeof(text), "a=%s b=%s none=%s", a ? a : "(null)", b ? b : "(null)",
             lw_http_form_get(req, "none") ? "set" : "(null)");
    p->status = 303;
    p->location = strdup("/done");
    p->body = strdup(text);
  } else if (!strcmp(path, "/file")) {
    p->status = 200;
    p->content_type = "application/octet-stream";
    p->file = strdup(file_path);
  } else if (!strcmp(path, "/missing-file")) {
    p->status = 200;
    p->file = strdup("/nonexistent/file");
  } else if (!strcmp(path, "/healthz")) {
    p->status = 200;
    p->body = strdup("ok\n");
  } else if (!strcmp(path, "/metrics")) {
    p->status = 200;
    p->content_type = "text/plain; version=0.0.4";
    p->body = strdup("lodwash_up 1\n");
  }
}

static size_t keep(char *ptr, size_t size, size_t n, void *userdata)
{
  char *buf = userdata;
  size_t len = strlen(buf);
  size_t add = size * n;
  if (len + add < 256) {
    memcpy(buf + len, ptr, add);
    buf[len + add] = '\0';
  }
  return add;
}

static long request(int port, const char *path, const char *method, const char *post,
                    char *body)
{
  char url[256];
  snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
  body[0] = '\0';
  CURL *curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
  if (post) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post);
  }
  long code = 0;
  if (curl_easy_perform(curl) == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  }
  curl_easy_cleanup(curl);
  return code;
}

/* Counts the response headers that forbid framing (issue 24, item 7). */
static size_t on_header(char *ptr, size_t size, size_t n, void *userdata)
{
  int *found = userdata;
  size_t len = size * n;
  const char *wanted[] = {"X-Frame-Options: DENY\r",
                          "Content-Security-Policy: frame-ancestors 'none'\r"};
  for (size_t i = 0; i < 2; ++i) {
    size_t w = strlen(wanted[i]);
    if (len >= w && !strncasecmp(ptr, wanted[i], w)) {
      ++*found;
    }
  }
  return len;
}

/* True when the page at path (any status) may not be framed. */
static bool unframeable(int port, const char *path, const char *method)
{
  char url[256];
  snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
  int found = 0;
  char body[256] = "";
  CURL *curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &found);
  bool ok = curl_easy_perform(curl) == CURLE_OK;
  curl_easy_cleanup(curl);
  return ok && found == 2;
}

static long get(int port, const char *path, const char *method, char *body)
{
  return request(port, path, method, NULL, body);
}

int main(void)
{
  snprintf(file_path, sizeof(file_path), "/tmp/lw-http-service-%d", (int)getpid());
  FILE *f = fopen(file_path, "wb");
  CHECK(f != NULL);
  if (f) {
    fwrite("bin\0ary", 1, 7, f);
    fclose(f);
  }
  int calls = 0;
  LwError err;
  LwHttpService *s = lw_http_service_start("127.0.0.1", 0, page, &calls, &err);
  CHECK(s != NULL);
  if (!s) {
    return lw_test_finish();
  }
  int port = lw_http_service_port(s);
  CHECK(port > 0);
  char body[256];
  CHECK_INT_EQ(get(port, "/healthz", "GET", body), 200);
  CHECK_STR_EQ(body, "ok\n");
  CHECK_INT_EQ(get(port, "/metrics", "GET", body), 200);
  CHECK_STR_EQ(body, "lodwash_up 1\n");
  CHECK_INT_EQ(get(port, "/nothing", "GET", body), 404);
  CHECK_INT_EQ(get(port, "/healthz", "DELETE", body), 405);
  CHECK_INT_EQ(calls, 3);
  CHECK_INT_EQ(request(port, "/echo", "POST", "a=1%3C2&b=x+y", body), 303);
  CHECK_STR_EQ(body, "a=1<2 b=x y none=(null)");
  CHECK_INT_EQ(get(port, "/file", "GET", body), 200);
  CHECK(!memcmp(body, "bin\0ary", 7));
  CHECK_INT_EQ(get(port, "/missing-file", "GET", body), 404);
  /* every page, whatever its status, forbids being framed */
  CHECK(unframeable(port, "/healthz", "GET"));
  CHECK(unframeable(port, "/nothing", "GET"));
  CHECK(unframeable(port, "/file", "GET"));
  CHECK(unframeable(port, "/healthz", "DELETE"));
  unlink(file_path);
  lw_http_service_stop(s);
  lw_http_service_stop(NULL);
  return lw_test_finish();
}
