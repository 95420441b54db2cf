/* The operators' HTTP service answers GETs from its page callback over real
 * HTTP on loopback, refuses other methods and says 404 for unknown paths. */
#include "common/http_service.h"

#include <curl/curl.h>
#include <stdlib.h>

#include "tests/support/check.h"

static void page(void *handle, const char *path, LwHttpPage *p)
{
  int *calls = handle;
  ++*calls;
  if (!strcmp(path, "/healthz")) {
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

static long get(int port, const char *path, const char *method, char *body)
{
  char url[256];
  snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
  body[0] = '\0';
  CURL *curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
  long code = 0;
  if (curl_easy_perform(curl) == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  }
  curl_easy_cleanup(curl);
  return code;
}

int main(void)
{
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
  lw_http_service_stop(s);
  lw_http_service_stop(NULL);
  return lw_test_finish();
}
